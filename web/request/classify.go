package request

import (
	"errors"
	"net/http"
	"time"

	"podium/board"
	"podium/hooks"
)

// Class is what a domain error means to a client, whichever part of the app
// answers: its HTTP status, the API's error code for it, and, for errors that
// pass, how long to wait before trying again (Retry-After). Each part keeps
// its own words: the API sends the code in a JSON problem, pages show an
// error page, the console shows the errors it can inline beside their fields.
type Class struct {
	Status int
	Code   string
	Retry  time.Duration
}

// Internal is the class of an error the table does not know: a bug, or a
// failure nobody can do anything about from outside. Its text stays in the
// log; clients are told nothing of it.
var Internal = Class{Status: http.StatusInternalServerError, Code: "internal"}

// busyRetry is how soon a client may retry a write to a board that was busy
// (its scores being converted, its definition changing).
const busyRetry = 2 * time.Second

// classes is the one table from domain errors to answers. The first row that
// matches an error wins, so a row comes before the broader ones an error it
// matches could also match (immutable options before other field errors).
var classes = []struct {
	is func(error) bool
	Class
}{
	{is(board.ErrNotFound), Class{Status: http.StatusNotFound, Code: "not_found"}},
	{is(board.ErrExists), Class{Status: http.StatusConflict, Code: "exists"}},
	{is(board.ErrDefinitionChanged), Class{Status: http.StatusConflict, Code: "definition_changed"}},
	{is(board.ErrGone), Class{Status: http.StatusGone, Code: "period_gone"}},
	{is(board.ErrTeamsNotArchived), Class{Status: http.StatusGone, Code: "teams_not_archived"}},
	{is(board.ErrArchived), Class{Status: http.StatusConflict, Code: "archived"}},
	{is(board.ErrBusy), Class{Status: http.StatusServiceUnavailable, Code: "busy", Retry: busyRetry}},
	{is(board.ErrPeriodDisabled, board.ErrInvalidPeriod), Class{Status: http.StatusNotFound, Code: "period_not_found"}},
	{StoreUnavailable, Class{Status: http.StatusServiceUnavailable, Code: "unavailable", Retry: StoreRetry}},
	{is(board.ErrFrozen), Class{Status: http.StatusConflict, Code: "frozen"}},
	{is(board.ErrNotFrozen), Class{Status: http.StatusConflict, Code: "not_frozen"}},
	{is(board.ErrIdempotencyReused), Class{Status: http.StatusUnprocessableEntity, Code: "idempotency_key_reused"}},
	{is(board.ErrSegmentFull), Class{Status: http.StatusConflict, Code: "segment_full"}},
	{is(board.ErrContestClosed), Class{Status: http.StatusConflict, Code: "contest_closed"}},
	{is(board.ErrRuleBroken), Class{Status: http.StatusUnprocessableEntity, Code: "rule_broken"}},
	{is(board.ErrSessionInvalid), Class{Status: http.StatusUnprocessableEntity, Code: "session_invalid"}},
	{immutable, Class{Status: http.StatusConflict, Code: "immutable"}},
	{invalid, Class{Status: http.StatusUnprocessableEntity, Code: "invalid"}},
	{is(hooks.ErrNotFound), Class{Status: http.StatusNotFound, Code: "hook_not_found"}},
	{is(hooks.ErrTooMany), Class{Status: http.StatusConflict, Code: "too_many"}},
}

// Classify says what err means to a client; ok is false, and the class
// Internal, for an error the table does not know.
func Classify(err error) (c Class, ok bool) {
	if err == nil {
		return Internal, false
	}
	for _, row := range classes {
		if row.is(err) {
			return row.Class, true
		}
	}
	return Internal, false
}

// is matches errors that wrap one of the sentinels.
func is(sentinels ...error) func(error) bool {
	return func(err error) bool {
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return true
			}
		}
		return false
	}
}

// invalid matches input the domain refuses, field by field: a definition,
// a submission, a webhook's registration.
func invalid(err error) bool {
	var bad *hooks.InvalidError
	return len(board.FieldErrors(err)) > 0 || errors.As(err, &bad)
}

// immutable matches a change to an option fixed at a board's creation.
func immutable(err error) bool {
	return len(board.FieldErrors(err)) > 0 && errors.Is(err, board.ErrImmutable)
}
