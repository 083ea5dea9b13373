package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"podium/board"
)

// Entry is a member in a payload: rank in the board's style, id, display
// name, and the score as an exact JSON number in the board's unit (as the
// API sends it).
type Entry struct {
	Rank   int         `json:"rank"`
	Member string      `json:"member"`
	Name   string      `json:"name"`
	Score  json.Number `json:"score"`
}

// Member names a member without a standing: the leader that was.
type Member struct {
	Member string `json:"member"`
	Name   string `json:"name"`
}

// Payload is the JSON body of a delivery. Which fields are present depends
// on Type: leader.changed has Leader and Previous (null for a period's
// first leader), top.entered has Entered and Top (the hook's top N now),
// period.closed has Top (the final top N), league.closed has League (the
// moves), score.held has Held (the score waiting for review); ping has Message. It is made
// from what was queued with the event and the board's unit, which never
// changes, so every attempt of a delivery sends the same body.
type Payload struct {
	ID       string          `json:"id"` // the event's: the same for every hook it went to
	Type     Event           `json:"type"`
	Board    string          `json:"board"`
	Created  time.Time       `json:"created"`
	Period   json.RawMessage `json:"period,omitempty"`
	Leader   *Entry          `json:"leader,omitempty"`
	Previous *Member         `json:"previous,omitempty"`
	Entered  []Entry         `json:"entered,omitempty"`
	Top      []Entry         `json:"top,omitempty"`
	League   *League         `json:"league,omitempty"`
	Held     *Held           `json:"held,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// rows reads a list of rows that Lua may have written as {} when empty.
type rows []row

func (r *rows) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("{}")) {
		*r = nil
		return nil
	}
	return json.Unmarshal(b, (*[]row)(r))
}

type eventData struct {
	Leader   *row            `json:"leader"`
	Previous json.RawMessage `json:"previous"`
	Entered  rows            `json:"entered"`
	Top      rows            `json:"top"`
	League   *League         `json:"league,omitempty"`
}

// render makes the body of a queued delivery (the stream entry's fields).
func render(b *board.Board, f map[string]any) ([]byte, error) {
	str := func(k string) string { s, _ := f[k].(string); return s }
	at, _ := strconv.ParseInt(str("at"), 10, 64)
	p := Payload{ID: str("event"), Type: Event(str("type")), Board: b.ID, Created: time.UnixMilli(at).UTC()}
	if per := str("period"); per != "" {
		p.Period = json.RawMessage(per)
	}
	entry := func(r row) Entry {
		v, _ := strconv.ParseFloat(r.Score, 64)
		return Entry{Rank: r.Rank, Member: r.Member, Name: r.Name, Score: json.Number(b.Format.Number(v))}
	}
	entries := func(rs rows) []Entry {
		out := make([]Entry, len(rs))
		for i, r := range rs {
			out[i] = entry(r)
		}
		return out
	}
	if p.Type == ScoreHeld {
		h, err := heldOf(b, str("data"))
		if err != nil {
			return nil, fmt.Errorf("hooks: event %s: %w", p.ID, err)
		}
		p.Held = h
		return json.Marshal(p)
	}
	var d eventData
	if data := str("data"); data != "" {
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			return nil, fmt.Errorf("hooks: event %s: %w", p.ID, err)
		}
	}
	switch p.Type {
	case NewLeader:
		if d.Leader != nil {
			e := entry(*d.Leader)
			p.Leader = &e
		}
		var prev row
		if len(d.Previous) > 0 && string(d.Previous) != "null" && json.Unmarshal(d.Previous, &prev) == nil {
			p.Previous = &Member{Member: prev.Member, Name: prev.Name}
		}
	case TopEntered:
		p.Entered, p.Top = entries(d.Entered), entries(d.Top)
	case PeriodClosed:
		p.Top = entries(d.Top)
	case LeagueClosed:
		p.League = d.League
	case Ping:
		p.Message = "A test event from the Podium console: this endpoint receives the board's webhooks."
	}
	out, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	// Always present for their type: "previous": null says there was none,
	// "top": [] that the period closed empty.
	if p.Type == NewLeader && p.Previous == nil {
		out = append(out[:len(out)-1], []byte(`,"previous":null}`)...)
	}
	if p.Type == PeriodClosed && len(p.Top) == 0 {
		out = append(out[:len(out)-1], []byte(`,"top":[]}`)...)
	}
	return out, nil
}
