package request

import (
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"podium/board"
	"podium/hooks"
)

// TestClassify: every domain error, wrapped with context as the store
// returns it, gets its status, code and retry from the one table; an error
// the table does not know is Internal.
func TestClassify(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("board: write %q: %w", "chess", err) }
	fieldErr := board.CheckMember("")
	immutable := errors.Join(&board.FieldError{Field: "order", Message: "cannot change after creation"}, board.ErrImmutable)
	tests := []struct {
		name   string
		err    error
		status int
		code   string
		retry  time.Duration
	}{
		{"not found", wrap(board.ErrNotFound), 404, "not_found", 0},
		{"exists", wrap(board.ErrExists), 409, "exists", 0},
		{"definition changed", wrap(board.ErrDefinitionChanged), 409, "definition_changed", 0},
		{"period gone", wrap(board.ErrGone), 410, "period_gone", 0},
		{"teams not archived", wrap(board.ErrTeamsNotArchived), 410, "teams_not_archived", 0},
		{"archived", wrap(board.ErrArchived), 409, "archived", 0},
		{"busy", wrap(board.ErrBusy), 503, "busy", 2 * time.Second},
		{"period disabled", wrap(board.ErrPeriodDisabled), 404, "period_not_found", 0},
		{"invalid period", wrap(board.ErrInvalidPeriod), 404, "period_not_found", 0},
		{"store unreachable", wrap(syscall.ECONNREFUSED), 503, "unavailable", StoreRetry},
		{"store loading", wrap(redisReply("LOADING Redis is loading the dataset in memory")), 503, "unavailable", StoreRetry},
		{"frozen", wrap(board.ErrFrozen), 409, "frozen", 0},
		{"not frozen", wrap(board.ErrNotFrozen), 409, "not_frozen", 0},
		{"idempotency key reused", wrap(board.ErrIdempotencyReused), 422, "idempotency_key_reused", 0},
		{"field error", wrap(fieldErr), 422, "invalid", 0},
		{"field error of a batch item", wrap(&board.BatchError{Index: 3, Err: fieldErr}), 422, "invalid", 0},
		{"joined field errors", errors.Join(fieldErr, board.CheckTeam("")), 422, "invalid", 0},
		{"immutable option", wrap(immutable), 409, "immutable", 0},
		{"webhook refused", &hooks.InvalidError{Fields: map[string]string{"url": "must start with https://"}}, 422, "invalid", 0},
		{"webhook not found", fmt.Errorf("get: %w", hooks.ErrNotFound), 404, "hook_not_found", 0},
		{"too many webhooks", hooks.ErrTooMany, 409, "too_many", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := Classify(tc.err)
			if want := (Class{Status: tc.status, Code: tc.code, Retry: tc.retry}); !ok || c != want {
				t.Fatalf("Classify(%v) = %+v, %v; want %+v", tc.err, c, ok, want)
			}
		})
	}
}

// TestClassifyUnknown: what the table does not know is a 500 that says
// nothing: a bug, a Redis reply that is not about availability, nil.
func TestClassifyUnknown(t *testing.T) {
	for name, err := range map[string]error{
		"plain error":     errors.New("boom"),
		"redis wrongtype": fmt.Errorf("board: read: %w", redisReply("WRONGTYPE Operation against a key")),
		"immutable alone": board.ErrImmutable, // only as the kind of a field error
		"nil":             nil,
	} {
		if c, ok := Classify(err); ok || c != Internal || c.Status != http.StatusInternalServerError {
			t.Errorf("%s: Classify = %+v, %v; want Internal", name, c, ok)
		}
	}
}

// TestClassifyFirstRowWins: an error that matches two rows gets the first.
// An edit that changes an option fixed at creation and gets another field
// wrong too is a conflict (409 immutable): fixing the other field would not
// make it pass. A board busy with a conversion is busy (retry in 2 s) even
// when the store also failed underneath.
func TestClassifyFirstRowWins(t *testing.T) {
	immutable := &board.FieldError{Field: "order", Message: "cannot change after creation"}
	for _, tc := range []struct {
		name string
		err  error
		code string
	}{
		{"immutable and invalid", errors.Join(board.CheckMember(""), immutable, board.ErrImmutable), "immutable"},
		{"busy and unreachable", errors.Join(syscall.ECONNRESET, board.ErrBusy), "busy"},
	} {
		if c, _ := Classify(tc.err); c.Code != tc.code {
			t.Errorf("%s: Classify = %+v; want %s", tc.name, c, tc.code)
		}
	}
}

// TestProblemOf: a surface's own words with the table's status, code and
// retry.
func TestProblemOf(t *testing.T) {
	p := ProblemOf(fmt.Errorf("x: %w", board.ErrBusy), "Busy", "Try again.", HomeLink)
	if p.Status != 503 || p.Code != "busy" || p.Retry != 2*time.Second || p.Title != "Busy" || p.Message != "Try again." || len(p.Links) != 1 {
		t.Fatalf("%+v", p)
	}
	if p := ProblemOf(errors.New("boom"), "t", "m"); p.Status != 500 || p.Code != "internal" {
		t.Fatalf("unknown error: %+v", p)
	}
}
