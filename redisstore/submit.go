package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"podium/board"
)

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
func (s writer) SubmitBatch(ctx context.Context, boardID string, subs []board.Submission, opt board.BatchOptions) ([]board.Result, error) {
	if len(subs) == 0 || len(subs) > board.MaxBatch {
		return nil, board.NewFieldError(board.ErrInvalidInput, "scores", "a batch holds 1 to %d submissions", board.MaxBatch)
	}
	if opt.Key != "" && !board.ValidIdempotencyKey(opt.Key) {
		return nil, board.NewFieldError(board.ErrInvalidInput, "idempotency_key", "must be 1-%d printable ASCII characters without spaces", board.MaxIdempotencyKeyLen)
	}
	if err := opt.By.Check(); err != nil {
		return nil, err
	}
	b, err := s.boardForWrite(ctx, boardID)
	if err != nil {
		return nil, err
	}
	keys := map[string]int{}
	for i := range subs {
		if err := board.CheckSubmission(&b, &subs[i]); err != nil {
			return nil, &board.BatchError{Index: i, Err: err}
		}
		if k := subs[i].IdempotencyKey; k != "" {
			if j, dup := keys[k]; dup {
				return nil, &board.BatchError{Index: i, Err: board.NewFieldError(board.ErrIdempotencyReused, "idempotency_key", "%q is also the key of item %d of this batch; each item needs its own", k, j)}
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
		return nil, fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
	case "reused":
		if i := toInt(rest[0]); i > 0 {
			return nil, &board.BatchError{Index: i - 1, Err: board.NewFieldError(board.ErrIdempotencyReused, "idempotency_key",
				"%q was already used for a different submission; use a new key for a new request", subs[i-1].IdempotencyKey)}
		}
		return nil, board.NewFieldError(board.ErrIdempotencyReused, "idempotency_key", "%q was already used for a different batch; use a new key for a new request", opt.Key)
	case "range":
		i := toInt(rest[0]) - 1
		return nil, &board.BatchError{Index: i, Err: rangeErr(&b, subs[i], rest[1], rest[2])}
	case "segfull":
		return nil, &board.BatchError{Index: toInt(rest[0]) - 1, Err: segmentFullErr(rest[1])}
	case "archived":
		return nil, archivedErr(boardID, rest)
	case "closed":
		return nil, contestErr(boardID, rest)
	case "gone":
		return nil, fmt.Errorf("board %q: held write %d: %w", boardID, opt.Approve, board.ErrHeldGone)
	case "session":
		return nil, &board.BatchError{Index: toInt(rest[0]) - 1, Err: board.SessionError(fmt.Sprint(rest[1]), b.Sessions)}
	case "rule":
		return nil, &board.BatchError{Index: toInt(rest[0]) - 1, Err: ruleErr(&b, rest[1], rest[2])}
	case "ok", "replay":
	default:
		return nil, fmt.Errorf("board: submit to %q: unexpected reply %q", boardID, st)
	}
	docs, err := decodeItems(rest, len(subs))
	if err != nil {
		return nil, fmt.Errorf("board: submit to %q: %w", boardID, err)
	}
	out := make([]board.Result, len(subs))
	for i, d := range docs {
		r, err := decodeChanges(&b, d.Periods, !d.NoRanks)
		if err != nil {
			return nil, fmt.Errorf("board: submit to %q: %w", boardID, err)
		}
		r.Member, r.Replayed = subs[i].Member, d.Replayed || st == "replay"
		r.Held, r.HeldID, r.Rule = d.Held, d.HeldID, d.Rule
		out[i] = r
	}
	return out, nil
}

// rangeErr reads a refused submission's period label and the member's
// score from the script's reply.
func rangeErr(b *board.Board, sub board.Submission, label, old any) error {
	cur, _ := old.(string)
	return board.RangeError(b, sub, fmt.Sprint(label), cur)
}

// itemJSON is one item of the submit script's result.
type itemJSON struct {
	Periods  []changeJSON `json:"periods"`
	Replayed bool         `json:"replayed"`
	NoRanks  bool         `json:"nr"`  // written without ranks: a rank of 0 is not "off the board"
	Err      string       `json:"err"` // "reused" or "range", in each mode
	P        string       `json:"p"`   // with "range": the period
	Old      string       `json:"old"` // with "range": the score there
	Attr     string       `json:"a"`   // with "segfull": the attribute
	Rule     string       `json:"r"`   // with "rule", or held: the rule broken
	Bound    string       `json:"l"`   // and its bound, in units
	Held     bool         `json:"held"`
	HeldID   int64        `json:"id"`  // held: its id in the review queue
	Why      string       `json:"why"` // with "session": why the run token was refused
}

// ruleErr reads a write refused for breaking a fair-play rule: the rule and
// its bound in units, shown as the board shows scores.
func ruleErr(b *board.Board, rule, bound any) error {
	units, _ := strconv.ParseFloat(fmt.Sprint(bound), 64)
	return &board.RuleError{Rule: fmt.Sprint(rule), Limit: b.Format.Number(units)}
}

// archivedErr refuses a write to a period whose keys expired to the
// archive: the writing process's clock is far behind the period's close.
func archivedErr(boardID string, rest []any) error {
	label := ""
	if len(rest) > 0 {
		label, _ = rest[0].(string)
	}
	return fmt.Errorf("board: %s of %q has closed and moved to the archive, where it no longer changes (is this server's clock behind?); nothing was written: %w", label, boardID, board.ErrArchived)
}

// contestErr reads a write refused outside the board's contest window:
// {"opens" or "closed", the instant in µs}.
func contestErr(boardID string, rest []any) error {
	e := &board.ContestError{Board: boardID}
	if len(rest) >= 2 {
		when, _ := rest[0].(string)
		us, _ := strconv.ParseInt(fmt.Sprint(rest[1]), 10, 64)
		e.Early, e.At = when == "opens", time.UnixMicro(us).UTC()
	}
	return e
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
func (s writer) runSubmit(ctx context.Context, b *board.Board, subs []board.Submission, times []time.Time, opt board.BatchOptions, atomic bool, refused []error) (st string, rest []any, sent []int, err error) {
	sent = make([]int, len(subs))
	for i := range sent {
		sent[i] = i
	}
	for attempt := 0; ; attempt++ {
		call := make([]board.Submission, len(sent))
		var at []time.Time
		for j, i := range sent {
			call[j] = subs[i]
			if times != nil {
				at = append(at, times[i])
			}
		}
		c, written := s.submitCall(b, call, at, opt, atomic, s.now())
		reply, err := c.run(ctx, s.rdb).Result()
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
			return "", nil, nil, fmt.Errorf("board: submit to %q: the definition kept changing during the write; nothing was written: %w", b.ID, board.ErrBusy)
		}
		nb, err := s.readBoard(ctx, b.ID)
		if err != nil {
			return "", nil, nil, err
		}
		if nb.LegacyUnits {
			return "", nil, nil, fmt.Errorf("board: submit to %q: its scores are being upgraded to exact units; retry in a moment: %w", b.ID, board.ErrBusy)
		}
		per, all := board.Recheck(b, &nb, call)
		if all != nil {
			return "", nil, nil, all
		}
		kept := sent[:0:0]
		for j, i := range sent {
			switch {
			case per[j] == nil:
				kept = append(kept, i)
			case atomic:
				return "", nil, nil, &board.BatchError{Index: i, Err: per[j]}
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

func batchFingerprint(subs []board.Submission) string {
	h := sha256.New()
	for i := range subs {
		fmt.Fprintf(h, "%s\x00%s\x01", fingerprint(&subs[i]), subs[i].IdempotencyKey)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// submitCall builds the submit script's call for checked submissions at
// now, and names the score keys it writes. Each submission's tie-break time
// is times[i], or now plus i microseconds without times, so the items of a
// batch tie in their order.
func (s writer) submitCall(b *board.Board, subs []board.Submission, times []time.Time, opt board.BatchOptions, atomic bool, now time.Time) (c *luaCall, zsets []string) {
	enc := encodingOf(b)
	mode, ranks := "each", "1"
	if atomic {
		mode = "atomic"
	}
	if opt.NoRanks {
		ranks = "0"
	}
	batchFP := ""
	if atomic && opt.Key != "" {
		batchFP = batchFingerprint(subs)
	}
	c = scripts.submit.call(13+4*len(b.Periods)+len(subs), 22+5*len(b.Periods)+12*len(subs))
	c.key("def", defKey(b.ID)).key("names", namesKey(b.ID)).key("names_lc", namesLowerKey(b.ID)).key("names_idx", nameIndexKey(b.ID)).
		key("recent", recentKey(b.ID)).key("periods", periodsKey(b.ID)).key("batch_idem", idemKey(b.ID, "batch:"+opt.Key)).
		key("audit", AuditStream(b.ID)).key("audit_actor", AuditActorStream(b.ID, opt.By.Actor)).key("audit_actors", AuditActors(b.ID)).
		key("archive", ArchiveState(b.ID)).key("freeze", freezeKey(b.ID)).key("held", heldKey(b.ID))
	c.encoding(b).arg("zero_fields", enc.fieldsPart(nil)).arg("time", enc.timePart(now)).arg("version", strconv.FormatInt(b.Version, 10)).
		arg("max", board.MaxExact).arg("cap", b.Cap).arg("batch_idem", opt.Key).arg("idem_ttl", int(s.idemTTL.Seconds())).
		arg("now", now.UnixMicro()).arg("recent_len", s.recentLen).arg("period_count", len(b.Periods)).arg("item_count", len(subs)).
		arg("batch_fingerprint", batchFP).arg("mode", mode).arg("ranks", ranks).arg("actor", opt.By.Actor).arg("reason", opt.By.Reason).
		arg("audit_keep", s.auditKeep).arg("approve", approveArg(opt.Approve))
	for _, k := range b.Periods {
		p := b.Current(k, now)
		z := ZSetKey(b.ID, p)
		zsets = append(zsets, z)
		c.in("period").key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).key("counts", groupCountKey(z)).
			arg("label", p.String())
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
			fp = fingerprint(sub)
		}
		at := now.Add(time.Duration(i) * time.Microsecond)
		if times != nil {
			at = times[i]
		}
		c.in("item").key("idem", idemKey(b.ID, sub.IdempotencyKey)).
			arg("op", string(sub.Op)).arg("value", strconv.FormatFloat(sub.Score, 'g', -1, 64)).arg("fields", fields).
			arg("member", sub.Member).arg("name", sub.Name).arg("lower", lower).arg("idem", sub.IdempotencyKey).
			arg("fingerprint", fp).arg("time", enc.timePart(at)).arg("team", sub.Team).arg("segments", segmentsArg(sub.Segments)).arg("session", sub.Session)
	}
	windowArgs(c, b, now)
	return c, zsets
}

// fingerprint identifies what a submission asks for, so an idempotency key
// sent again with a different request can be told from a true retry.
func fingerprint(sub *board.Submission) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%v", sub.Member, sub.Op, strconv.FormatFloat(sub.Score, 'g', -1, 64), sub.Name, sub.Fields)
	if sub.Team != "" {
		fmt.Fprintf(h, "\x00%s", sub.Team)
	}
	if segs := segmentsArg(sub.Segments); segs != "" {
		fmt.Fprintf(h, "\x00s%s", segs)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// approveArg is the submit script's approve argument: "" for none.
func approveArg(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}
