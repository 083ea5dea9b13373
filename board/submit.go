package board

import (
	"context"
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
	if k := sub.IdempotencyKey; k != "" {
		if len(k) > maxIdemKeyLen || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			return fieldErr(ErrInvalidInput, "idempotency_key", "must be 1-%d printable ASCII characters without spaces", maxIdemKeyLen)
		}
	}
	return nil
}

// Submit applies one score to every enabled period of the board at once.
// Nothing is written if any check fails, including a result that would leave
// the range the board keeps exactly.
func (s *Store) Submit(ctx context.Context, boardID string, sub Submission) (Result, error) {
	b, err := s.Board(ctx, boardID)
	if err != nil {
		return Result{}, err
	}
	if err := CheckSubmission(&b, &sub); err != nil {
		return Result{}, fmt.Errorf("board: submit %q to %q: %w", sub.Member, boardID, err)
	}
	keys, args, zsets := s.submitCall(&b, &sub, s.now())
	reply, err := scripts.submit.Run(ctx, s.rdb, keys, args...).Result()
	if err != nil {
		return Result{}, fmt.Errorf("board: submit %q to %q: %w", sub.Member, boardID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return Result{}, fmt.Errorf("board: submit %q to %q: %w", sub.Member, boardID, err)
	}
	switch st {
	case "nf":
		return Result{}, fmt.Errorf("board %q: %w", boardID, ErrNotFound)
	case "range":
		return Result{}, fmt.Errorf("board: submit %q to %q: %w", sub.Member, boardID,
			fieldErr(ErrInvalidScore, "score", "would make the %v score %s, beyond ±%s that this board keeps exactly",
				rest[0], exactResult(rest[1], sub), strconv.FormatFloat(b.Format.MaxScore(), 'f', -1, 64)))
	case "ok", "replay":
	default:
		return Result{}, fmt.Errorf("board: submit %q to %q: unexpected reply %q", sub.Member, boardID, st)
	}
	res, err := decodeResult(&b, rest[0].(string))
	if err != nil {
		return Result{}, fmt.Errorf("board: submit %q to %q: %w", sub.Member, boardID, err)
	}
	res.Member, res.Replayed = sub.Member, st == "replay"
	if !res.Replayed {
		s.wrote(ctx, zsets...)
	}
	return res, nil
}

// submitCall builds the submit script's keys and arguments for a checked
// submission at now, and names the score keys it writes.
func (s *Store) submitCall(b *Board, sub *Submission, now time.Time) (keys []string, args []any, zsets []string) {
	enc := encodingOf(b)
	name := sub.Name
	lower := strings.ToLower(sub.Member)
	if name != "" {
		lower = strings.ToLower(name)
	}
	fields := ""
	if sub.Fields != nil {
		fields = enc.fieldsPart(sub.Fields)
	}
	decimals := -1
	if b.Format.Type == Decimal {
		decimals = b.Format.Decimals
	}
	keys = []string{defKey(b.ID), namesKey(b.ID), namesLowerKey(b.ID), nameIndexKey(b.ID), recentKey(b.ID), periodsKey(b.ID), idemKey(b.ID, sub.IdempotencyKey)}
	args = append(prelude(b),
		string(sub.Op), strconv.FormatFloat(sub.Score, 'g', -1, 64), fields, enc.fieldsPart(nil), enc.timePart(now),
		sub.Member, name, lower, decimals, strconv.FormatFloat(b.Format.MaxScore(), 'g', -1, 64), b.Cap,
		sub.IdempotencyKey, int(s.idemTTL.Seconds()), now.UnixMicro(), s.recentLen)
	for _, k := range b.Periods {
		p := b.Current(k, now)
		z := ZSetKey(b.ID, p)
		zsets = append(zsets, z)
		keys = append(keys, z, entriesKey(z), distinctKey(z), groupCountKey(z))
		args = append(args, p.String())
	}
	return keys, args, zsets
}

// changeJSON is one period of the submit script's result; empty scores and
// zero ranks mean "not on the board".
type changeJSON struct {
	P  string `json:"p"`
	BS string `json:"bs"`
	BR int    `json:"br"`
	AS string `json:"as"`
	AR int    `json:"ar"`
}

func decodeResult(b *Board, raw string) (Result, error) {
	var doc struct {
		Periods []changeJSON `json:"periods"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return Result{}, fmt.Errorf("decode result: %w", err)
	}
	var res Result
	for _, c := range doc.Periods {
		p, err := parseLabel(c.P, b.Location())
		if err != nil {
			return Result{}, err
		}
		before, err := place(c.BS, c.BR)
		if err != nil {
			return Result{}, err
		}
		after, err := place(c.AS, c.AR)
		if err != nil {
			return Result{}, err
		}
		res.Changes = append(res.Changes, Change{Period: p, Before: before, After: after})
	}
	return res, nil
}

func place(score string, rank int) (Place, error) {
	if score == "" {
		return Place{}, nil
	}
	v, err := strconv.ParseFloat(score, 64)
	if err != nil {
		return Place{}, fmt.Errorf("decode score %q: %w", score, err)
	}
	return Place{Ranked: rank > 0, Score: v, Rank: rank}, nil
}

// parseLabel reads Period.String() back.
func parseLabel(label string, loc *time.Location) (Period, error) {
	kind, key, _ := strings.Cut(label, ":")
	k, err := ParseKind(kind)
	if err != nil {
		return Period{}, err
	}
	return ParsePeriod(k, key, loc)
}

// exactResult is the score a refused submission would have made, computed
// without rounding, for the error message.
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
