package board

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Submission is one score for one member.
type Submission struct {
	Member         string
	Score          float64
	Op             Op      // empty means Incr
	Name           string  // optional display name; the id until one is set
	Fields         []int64 // extra sort field values, one per board field; nil keeps the member's
	IdempotencyKey string  // optional; a retry with the same key is applied once
	// Team, when set, moves the member to that team (redisstore/team.go) before
	// the score counts; empty keeps the member's team.
	Team string
	// Segments, when set, sets the member's value of each attribute named
	// (board/segment.go; "" takes it out of the attribute), moving its
	// scores before this one counts; attributes not named keep their value.
	Segments map[string]string
	// Unit is the board unit Score was read in (Format.Unit), when the caller
	// read it from text; a board whose unit has since changed refuses it
	// with ErrDefinitionChanged. Empty trusts the caller.
	Unit string
	// Session is the run's token on a board with sessions (board/session.go);
	// SessionWaived for the console's adjustments.
	Session string
}

// Place is a member's standing in one period; Ranked is false when the member
// is not on that period's board (never scored, or trimmed by the size cap).
type Place struct {
	Ranked bool
	Score  float64
	Rank   int
}

// Change is what a submission did to one period.
type Change struct {
	Period Period
	Before Place
	After  Place
}

// Result lists the change in every enabled period, in the board's period
// order, so a caller can say "you moved from 12th to 4th this week".
type Result struct {
	Member   string
	Changes  []Change
	Replayed bool // an earlier submission with the same idempotency key
	// Held: the write broke the board's fair-play rule Rule (board/rules.go)
	// and the board holds such writes for review: nothing was applied (no
	// Changes) until a person approves it; HeldID is its id in the review
	// queue.
	Held   bool
	HeldID int64
	Rule   string
}

// Change returns the change in a period kind, and false if it is not enabled.
func (r Result) Change(k Kind) (Change, bool) {
	for _, c := range r.Changes {
		if c.Period.Kind == k {
			return c, true
		}
	}
	return Change{}, false
}

// MaxIdempotencyKeyLen is the longest idempotency key, in bytes.
const MaxIdempotencyKeyLen = 128

// CheckSubmission refuses what a board cannot take, naming the field; Submit
// calls it, and forms and the API may call it to report every problem early.
func CheckSubmission(b *Board, sub *Submission) error {
	if err := CheckMember(sub.Member); err != nil {
		return err
	}
	if sub.Unit != "" && sub.Unit != b.Format.Unit() {
		return fmt.Errorf("board %q now keeps scores in units of %s, not %s: %w", b.ID, b.Format.Unit(), sub.Unit, ErrDefinitionChanged)
	}
	op, err := ParseOp(string(sub.Op))
	if err != nil {
		return err
	}
	sub.Op = op
	if sub.Score, err = b.Format.CheckScore(sub.Score); err != nil {
		return err
	}
	if (op == Incr || op == Decr) && sub.Score < 0 {
		return NewFieldError(ErrInvalidScore, "score", "must not be negative with %s; use %s", op, map[Op]Op{Incr: Decr, Decr: Incr}[op])
	}
	if sub.Name != "" {
		if err := CheckName(sub.Name); err != nil {
			return err
		}
	}
	if len(sub.Fields) != 0 && len(sub.Fields) != len(b.Fields) {
		return NewFieldError(ErrInvalidInput, "fields", "board %q has %d extra fields, got %d values", b.ID, len(b.Fields), len(sub.Fields))
	}
	if sub.Team != "" {
		if b.Teams == TeamsOff {
			return NewFieldError(ErrInvalidInput, "team", "board %q has no teams; enable them on the board first", b.ID)
		}
		if err := CheckTeam(sub.Team); err != nil {
			return err
		}
	}
	if len(sub.Segments) > 0 {
		if err := CheckSegments(b, sub.Segments); err != nil {
			return err
		}
	}
	if k := sub.IdempotencyKey; k != "" && !ValidIdempotencyKey(k) {
		return NewFieldError(ErrInvalidInput, "idempotency_key", "must be 1-%d printable ASCII characters without spaces", MaxIdempotencyKeyLen)
	}
	return nil
}

// ValidIdempotencyKey reports whether k may key an idempotent write:
// 1-MaxIdempotencyKeyLen printable ASCII characters, no spaces.
func ValidIdempotencyKey(k string) bool {
	return len(k) > 0 && len(k) <= MaxIdempotencyKeyLen && !strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f })
}

// MaxBatch is the most submissions one SubmitBatch takes.
const MaxBatch = 1000

// BatchError says which item of a batch was refused; nothing was written.
type BatchError struct {
	Index int // 0-based
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("item %d: %v", e.Index, e.Err) }

// Unwrap exposes the item's error to errors.Is and errors.As.
func (e *BatchError) Unwrap() error { return e.Err }

// Author says who makes a change and why. The script that makes the change
// appends its audit entry to the board's log in the same atomic step.
type Author struct {
	Actor  string // "admin:alice", "key:ci-bot (k3f9a2b1)", "demo"
	Reason string // optional
}

// Check refuses an author the audit log cannot name.
func (a Author) Check() error {
	// The app makes actors ("key:" and a key name of up to 64 characters);
	// this only keeps a bad caller from writing nonsense into the log.
	if a.Actor == "" || len(a.Actor) > 1024 || strings.ContainsFunc(a.Actor, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return NewFieldError(ErrInvalidInput, "actor", "every write names its actor for the audit log: 1-1024 bytes without control characters")
	}
	if len(a.Reason) > 2000 {
		return NewFieldError(ErrInvalidInput, "reason", "must be at most 2,000 bytes")
	}
	return nil
}

// BatchOptions are a batch's settings.
type BatchOptions struct {
	Key string // batch idempotency key: a retried batch returns its first results
	By  Author
	// NoRanks skips the before and after ranks (Place.Rank is 0, Ranked
	// says whether the member is on the board): the least work per score
	// that keeps periods, ties, names, the recent list and the audit right.
	NoRanks bool
	// Approve, when not 0, applies the held write of that id (board/rules.go)
	// as the batch's one item, in place of the item given: as it was sent,
	// with its own time, past the contest window and the rules.
	Approve int64
}

// Recheck checks submissions again against a definition that changed under
// them; the ones checked against the old one may not fit the new one. all
// refuses every submission; per[i] refuses one.
func Recheck(old, upd *Board, subs []Submission) (per []error, all error) {
	per = make([]error, len(subs))
	if old.Format.Unit() != upd.Format.Unit() {
		// The values were read as units of the old board: written now, 12.34
		// would become 1.234. Only the sender can say what it meant.
		return per, fmt.Errorf("board %q was made again with scores in units of %s (they were read in units of %s); nothing was written: %w",
			upd.ID, upd.Format.Unit(), old.Format.Unit(), ErrDefinitionChanged)
	}
	if old.Format == upd.Format && len(old.Fields) == len(upd.Fields) && slices.Equal(old.Segments, upd.Segments) {
		return per, nil
	}
	for i := range subs {
		per[i] = CheckSubmission(upd, &subs[i])
	}
	return per, nil
}

// RangeError refuses a submission that would take the member's score in
// period (a label such as "2026-W47") beyond what the board keeps exactly;
// current is the member's score there, in units, as decimal text.
func RangeError(b *Board, sub Submission, period, current string) error {
	return NewFieldError(ErrInvalidScore, "score", "would make the %s score %s, beyond ±%s that this board keeps exactly",
		period, shiftPoint(exactResult(current, sub), b.Format.places()), b.Format.MaxText())
}

// exactResult is the score in units a refused submission would have made,
// computed without rounding, as plain decimal text for the error message.
func exactResult(cur string, sub Submission) string {
	x, _, err := big.ParseFloat(cur, 10, 256, big.ToNearestEven)
	if err != nil {
		x = new(big.Float)
	}
	v := new(big.Float).SetPrec(256).SetFloat64(sub.Score)
	switch sub.Op {
	case Incr:
		x.Add(x, v)
	case Decr:
		x.Sub(x, v)
	default:
		x = v
	}
	return x.Text('f', -1)
}
