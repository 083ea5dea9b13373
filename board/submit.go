package board

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Submission is one score for one member.
type Submission struct {
	Member         string
	Score          float64
	Op             Op      // empty means Incr
	Name           string  // optional display name; the id until one is set
	Fields         []int64 // extra sort field values, one per board field; nil keeps the member's
	IdempotencyKey string  // optional; a retry with the same key is applied once
	// Team, when set, moves the member to that team (board/team.go) before
	// the score counts; empty keeps the member's team.
	Team string
	// Unit is the board unit Score was read in (Format.Unit), when the caller
	// read it from text; a board whose unit has since changed refuses it
	// with ErrDefinitionChanged. Empty trusts the caller.
	Unit string
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

const maxIdemKeyLen = 128

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
		return fieldErr(ErrInvalidScore, "score", "must not be negative with %s; use %s", op, map[Op]Op{Incr: Decr, Decr: Incr}[op])
	}
	if sub.Name != "" {
		if err := CheckName(sub.Name); err != nil {
			return err
		}
	}
	if len(sub.Fields) != 0 && len(sub.Fields) != len(b.Fields) {
		return fieldErr(ErrInvalidInput, "fields", "board %q has %d extra fields, got %d values", b.ID, len(b.Fields), len(sub.Fields))
	}
	if sub.Team != "" {
		if b.Teams == TeamsOff {
			return fieldErr(ErrInvalidInput, "team", "board %q has no teams; enable them on the board first", b.ID)
		}
		if err := CheckTeam(sub.Team); err != nil {
			return err
		}
	}
	if k := sub.IdempotencyKey; k != "" && !validIdemKey(k) {
		return fieldErr(ErrInvalidInput, "idempotency_key", "must be 1-%d printable ASCII characters without spaces", maxIdemKeyLen)
	}
	return nil
}

func validIdemKey(k string) bool {
	return len(k) > 0 && len(k) <= maxIdemKeyLen && !strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f })
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

func (a Author) check() error {
	// The app makes actors ("key:" and a key name of up to 64 characters);
	// this only keeps a bad caller from writing nonsense into the log.
	if a.Actor == "" || len(a.Actor) > 1024 || strings.ContainsFunc(a.Actor, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fieldErr(ErrInvalidInput, "actor", "every write names its actor for the audit log: 1-1024 bytes without control characters")
	}
	if len(a.Reason) > 2000 {
		return fieldErr(ErrInvalidInput, "reason", "must be at most 2,000 bytes")
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
}

// writeTimeout bounds a write's script call. The call runs detached from the
// caller's context: once a write is sent it completes, or times out, and is
// audited, even when the client that asked for it has gone away.
const writeTimeout = 10 * time.Second

// SubmitBatch applies many submissions to one board in one atomic step: all
// are checked first (later items see earlier ones), and a single refused item
// refuses the batch (a *BatchError) with nothing written. opt.Key, when set,
// makes a retried batch return its first results without applying again;
// each item's own IdempotencyKey does the same for that item. The batch is
// one entry in the board's audit log, by opt.By.
func (s *Store) SubmitBatch(ctx context.Context, boardID string, subs []Submission, opt BatchOptions) ([]Result, error) {
	if len(subs) == 0 || len(subs) > MaxBatch {
		return nil, fieldErr(ErrInvalidInput, "scores", "a batch holds 1 to %d submissions", MaxBatch)
	}
	if opt.Key != "" && !validIdemKey(opt.Key) {
		return nil, fieldErr(ErrInvalidInput, "idempotency_key", "must be 1-%d printable ASCII characters without spaces", maxIdemKeyLen)
	}
	if err := opt.By.check(); err != nil {
		return nil, err
	}
	b, err := s.boardForWrite(ctx, boardID)
	if err != nil {
		return nil, err
	}
	keys := map[string]int{}
	for i := range subs {
		if err := CheckSubmission(&b, &subs[i]); err != nil {
			return nil, &BatchError{Index: i, Err: err}
		}
		if k := subs[i].IdempotencyKey; k != "" {
			if j, dup := keys[k]; dup {
				return nil, &BatchError{Index: i, Err: fieldErr(ErrIdempotencyReused, "idempotency_key", "%q is also the key of item %d of this batch; each item needs its own", k, j)}
			}
			keys[k] = i
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	st, rest, _, err := s.runSubmit(ctx, &b, subs, nil, opt, true, nil)
	if err != nil {
		return nil, err
	}
	switch st {
	case "nf":
		return nil, fmt.Errorf("board %q: %w", boardID, ErrNotFound)
	case "reused":
		if i := toInt(rest[0]); i > 0 {
			return nil, &BatchError{Index: i - 1, Err: fieldErr(ErrIdempotencyReused, "idempotency_key",
				"%q was already used for a different submission; use a new key for a new request", subs[i-1].IdempotencyKey)}
		}
		return nil, fieldErr(ErrIdempotencyReused, "idempotency_key", "%q was already used for a different batch; use a new key for a new request", opt.Key)
	case "range":
		i := toInt(rest[0]) - 1
		return nil, &BatchError{Index: i, Err: rangeErr(&b, subs[i], rest[1], rest[2])}
	case "archived":
		return nil, archivedErr(boardID, rest)
	case "ok", "replay":
	default:
		return nil, fmt.Errorf("board: submit to %q: unexpected reply %q", boardID, st)
	}
	docs, err := decodeItems(rest, len(subs))
	if err != nil {
		return nil, fmt.Errorf("board: submit to %q: %w", boardID, err)
	}
	out := make([]Result, len(subs))
	for i, d := range docs {
		r, err := decodeChanges(&b, d.Periods, !d.NoRanks)
		if err != nil {
			return nil, fmt.Errorf("board: submit to %q: %w", boardID, err)
		}
		r.Member, r.Replayed = subs[i].Member, d.Replayed || st == "replay"
		out[i] = r
	}
	return out, nil
}

func rangeErr(b *Board, sub Submission, label, old any) error {
	return fieldErr(ErrInvalidScore, "score", "would make the %v score %s, beyond ±%s that this board keeps exactly",
		label, shiftPoint(exactResult(old, sub), b.Format.places()), b.Format.MaxText())
}

// itemJSON is one item of the submit script's result.
type itemJSON struct {
	Periods  []changeJSON `json:"periods"`
	Replayed bool         `json:"replayed"`
	NoRanks  bool         `json:"nr"`  // written without ranks: a rank of 0 is not "off the board"
	Err      string       `json:"err"` // "reused" or "range", in each mode
	P        string       `json:"p"`   // with "range": the period
	Old      string       `json:"old"` // with "range": the score there
}

// archivedErr refuses a write to a period whose keys expired to the
// archive: the writing process's clock is far behind the period's close.
func archivedErr(boardID string, rest []any) error {
	label := ""
	if len(rest) > 0 {
		label, _ = rest[0].(string)
	}
	return fmt.Errorf("board: %s of %q has closed and moved to the archive, where it no longer changes (is this server's clock behind?); nothing was written: %w", label, boardID, ErrArchived)
}

func decodeItems(rest []any, n int) ([]itemJSON, error) {
	raw, _ := rest[0].(string)
	var docs []itemJSON
	if err := json.Unmarshal([]byte(raw), &docs); err != nil || len(docs) != n {
		return nil, fmt.Errorf("decode %d results for %d items: %v", len(docs), n, err)
	}
	return docs, nil
}

// runSubmit calls the submit script for checked submissions. A definition
// changed between the read and the script (another admin saved the board,
// or it was deleted and created again) makes it read the definition again
// and retry, a few times at most, so every score is applied with the
// settings current when it is written. The script is the judge: it also
// refuses a decimal board that still holds decimals (before Store.Upgrade),
// which the re-read then reports. In atomic mode a submission the new
// definition refuses refuses the batch; in each mode refused[i] gets its
// error and the rest go on. sent maps the script's items to indexes of subs.
// times[i], when given, is when subs[i] arrived: the time its tie-break
// records.
func (s *Store) runSubmit(ctx context.Context, b *Board, subs []Submission, times []time.Time, opt BatchOptions, atomic bool, refused []error) (st string, rest []any, sent []int, err error) {
	sent = make([]int, len(subs))
	for i := range sent {
		sent[i] = i
	}
	for attempt := 0; ; attempt++ {
		call := make([]Submission, len(sent))
		var at []time.Time
		for j, i := range sent {
			call[j] = subs[i]
			if times != nil {
				at = append(at, times[i])
			}
		}
		keys, args, written := s.submitCall(b, call, at, opt, atomic, s.now())
		reply, err := scripts.submit.Run(ctx, s.rdb, keys, args...).Result()
		if err != nil {
			return "", nil, nil, fmt.Errorf("board: submit to %q: %w", b.ID, err)
		}
		st, rest, err := status(reply)
		if err != nil {
			return "", nil, nil, fmt.Errorf("board: submit to %q: %w", b.ID, err)
		}
		if st == "nf" && attempt == 0 {
			st = "stale" // perhaps deleted and made again since it was cached: read it
		}
		if st != "stale" {
			if st == "ok" {
				s.wrote(ctx, written...) // the keys the script wrote, even past midnight since
			}
			return st, rest, sent, nil
		}
		if attempt == 4 {
			return "", nil, nil, fmt.Errorf("board: submit to %q: the definition kept changing during the write; nothing was written: %w", b.ID, ErrBusy)
		}
		nb, err := s.readBoard(ctx, b.ID)
		if err != nil {
			return "", nil, nil, err
		}
		if nb.oldUnits {
			return "", nil, nil, fmt.Errorf("board: submit to %q: its scores are being upgraded to exact units; retry in a moment: %w", b.ID, ErrBusy)
		}
		per, all := recheck(b, &nb, call)
		if all != nil {
			return "", nil, nil, all
		}
		kept := sent[:0:0]
		for j, i := range sent {
			switch {
			case per[j] == nil:
				kept = append(kept, i)
			case atomic:
				return "", nil, nil, &BatchError{Index: i, Err: per[j]}
			default:
				refused[i] = per[j]
			}
		}
		if len(kept) == 0 {
			return "ok", nil, nil, nil
		}
		sent = kept
		*b = nb
	}
}

// recheck checks submissions again against a definition that changed under
// them; the ones checked against the old one may not fit the new one. all
// refuses every submission; per[i] refuses one.
func recheck(old, upd *Board, subs []Submission) (per []error, all error) {
	per = make([]error, len(subs))
	if old.Format.Unit() != upd.Format.Unit() {
		// The values were read as units of the old board: written now, 12.34
		// would become 1.234. Only the sender can say what it meant.
		return per, fmt.Errorf("board %q was made again with scores in units of %s (they were read in units of %s); nothing was written: %w",
			upd.ID, upd.Format.Unit(), old.Format.Unit(), ErrDefinitionChanged)
	}
	if old.Format == upd.Format && len(old.Fields) == len(upd.Fields) {
		return per, nil
	}
	for i := range subs {
		per[i] = CheckSubmission(upd, &subs[i])
	}
	return per, nil
}

// fingerprint identifies what a submission asks for, so an idempotency key
// sent again with a different request can be told from a true retry.
func (sub *Submission) fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%v", sub.Member, sub.Op, strconv.FormatFloat(sub.Score, 'g', -1, 64), sub.Name, sub.Fields)
	if sub.Team != "" {
		fmt.Fprintf(h, "\x00%s", sub.Team)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func batchFingerprint(subs []Submission) string {
	h := sha256.New()
	for i := range subs {
		fmt.Fprintf(h, "%s\x00%s\x01", subs[i].fingerprint(), subs[i].IdempotencyKey)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// submitCall builds the submit script's keys and arguments for checked
// submissions at now, and names the score keys it writes. Each submission's
// tie-break time is times[i], or now plus i microseconds without times, so
// the items of a batch tie in their order.
func (s *Store) submitCall(b *Board, subs []Submission, times []time.Time, opt BatchOptions, atomic bool, now time.Time) (keys []string, args []any, zsets []string) {
	enc := encodingOf(b)
	mode, ranks := "each", "1"
	if atomic {
		mode = "atomic"
	}
	if opt.NoRanks {
		ranks = "0"
	}
	keys = make([]string, 0, 12+4*len(b.Periods)+len(subs))
	keys = append(keys, defKey(b.ID), namesKey(b.ID), namesLowerKey(b.ID), nameIndexKey(b.ID), recentKey(b.ID), periodsKey(b.ID), idemKey(b.ID, "batch:"+opt.Key),
		AuditStream(b.ID), AuditActorStream(b.ID, opt.By.Actor), AuditActors(b.ID), ArchiveState(b.ID), freezeKey(b.ID))
	args = make([]any, 0, 22+len(b.Periods)+10*len(subs)+4*len(b.Periods))
	batchFP := ""
	if atomic && opt.Key != "" {
		batchFP = batchFingerprint(subs)
	}
	args = append(append(args, prelude(b)...),
		enc.fieldsPart(nil), enc.timePart(now), strconv.FormatInt(b.Version, 10), MaxExact, b.Cap,
		opt.Key, int(s.idemTTL.Seconds()), now.UnixMicro(), s.recentLen, len(b.Periods), len(subs), batchFP,
		mode, ranks, opt.By.Actor, opt.By.Reason, s.auditKeep)
	for _, k := range b.Periods {
		p := b.Current(k, now)
		z := ZSetKey(b.ID, p)
		zsets = append(zsets, z)
		keys = append(keys, z, entriesKey(z), distinctKey(z), groupCountKey(z))
		args = append(args, p.String())
	}
	for i := range subs {
		sub := &subs[i]
		lower := strings.ToLower(sub.Member)
		if sub.Name != "" {
			lower = strings.ToLower(sub.Name)
		}
		fields, fp := "", ""
		if sub.Fields != nil {
			fields = enc.fieldsPart(sub.Fields)
		}
		if sub.IdempotencyKey != "" {
			fp = sub.fingerprint()
		}
		at := now.Add(time.Duration(i) * time.Microsecond)
		if times != nil {
			at = times[i]
		}
		tp := enc.timePart(at)
		keys = append(keys, idemKey(b.ID, sub.IdempotencyKey))
		args = append(args, string(sub.Op), strconv.FormatFloat(sub.Score, 'g', -1, 64), fields, sub.Member, sub.Name, lower, sub.IdempotencyKey, fp, tp, sub.Team)
	}
	args = append(args, b.windowArgs(now)...)
	return keys, args, zsets
}

// exactResult is the score in units a refused submission would have made,
// computed without rounding, as plain decimal text for the error message.
func exactResult(old any, sub Submission) string {
	cur, _ := old.(string)
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
