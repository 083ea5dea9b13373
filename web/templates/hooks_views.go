package templates

import (
	"strconv"
	"time"
)

// HooksView is a board's webhooks page: the form to add one, each hook
// with its recent deliveries, and a new secret, shown once.
type HooksView struct {
	Nav          AdminNav
	Board, Title string
	Periods      []Link // the board's periods: Label, and the form value in Href
	Events       []Link // the events a hook may ask for, the same way
	LeagueNote   string // ", a league period's promotions and relegations" on a board with a league
	Hooks        []HookRow
	// The form, as sent back with errors.
	URL, Top                string
	Chosen                  map[string]bool // events and periods ticked
	Errors                  map[string]string
	NewSecret, NewSecretFor string
	Max                     int
}

// HookRow is one registered webhook.
type HookRow struct {
	ID, URL, Events, Periods, By string
	Top                          int
	Created                      time.Time
	Enabled                      bool
	Deliveries                   []DeliveryRow
}

// DeliveryRow is one delivery attempt.
type DeliveryRow struct {
	At                             time.Time
	Type, Event, Delivery, Outcome string
	Attempt, Code                  int
	Error                          string
	Millis                         int64
	Next                           time.Time
}

// hookFields are the webhook form's fields, in the order it shows them.
var hookFields = []formField{{"url", "h-url", "Endpoint URL"}, {"events", "h-events-0", "Events"}, {"periods", "h-periods-0", "Periods"}, {"top", "h-top", "Top N"}}

func deliveryCode(d DeliveryRow) string {
	if d.Code == 0 {
		return "–"
	}
	return strconv.Itoa(d.Code)
}

func deliveryResult(d DeliveryRow) string {
	switch {
	case d.Outcome == "retrying" && !d.Next.IsZero() && d.Error != "":
		return "failed (" + d.Error + "), retry at " + d.Next.UTC().Format("15:04:05")
	case d.Outcome == "retrying" && !d.Next.IsZero():
		return "failed, retry at " + d.Next.UTC().Format("15:04:05")
	case d.Error != "":
		return d.Outcome + ": " + d.Error
	}
	return d.Outcome
}

func outcomeClass(o string) string {
	switch o {
	case "delivered":
		return "outcome ok"
	case "skipped":
		return "outcome"
	}
	return "outcome bad"
}
