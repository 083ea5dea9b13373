package hooks

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// Outcomes of an attempt, as the console lists them.
const (
	Delivered = "delivered" // the receiver answered 2xx
	Retrying  = "retrying"  // failed; another attempt is due at Next
	GaveUp    = "gave up"   // failed, and the retry time is over
	Skipped   = "skipped"   // the hook was disabled before its turn
)

// Attempt is one try at a delivery, kept in the hook's log.
type Attempt struct {
	Delivery string    `json:"delivery"` // the Podium-Delivery id
	Event    string    `json:"event"`
	Type     Event     `json:"type"`
	At       time.Time `json:"at"`
	Attempt  int       `json:"attempt"`
	Outcome  string    `json:"outcome"`
	Code     int       `json:"code,omitempty"`  // the receiver's status
	Error    string    `json:"error,omitempty"` // why no answer came: one of Failures, never the error's text
	Millis   int64     `json:"ms"`
	Next     time.Time `json:"next,omitzero"`
}

//go:embed lua/finish.lua
var finishLua string

var finishScript = redis.NewScript(finishLua)

// claimed is a queue entry this replica now holds, and its attempt number.
type claimed struct {
	msg     redis.XMessage
	attempt int
}

// claim takes this replica's share of a board's queue: new entries (the
// consumer group hands each to one consumer), and failed or abandoned ones
// whose backoff has passed (XCLAIM with that idle time as its minimum is
// atomic: when two replicas try, one gets it). The pending list's idle
// time and delivery count are the backoff's whole state, so an entry a
// replica left behind when it died is picked up like any retry.
func (r *Runner) claim(ctx context.Context, id string, max int) ([]claimed, error) {
	q := queueKey(id)
	var out []claimed
	if max <= 0 {
		return nil, nil
	}
	read := func() ([]redis.XStream, error) {
		return r.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: r.opts.Consumer,
			Streams: []string{q, ">"}, Count: int64(min(16, max)), Block: -1}).Result()
	}
	ss, err := read()
	if err != nil && strings.HasPrefix(err.Error(), "NOGROUP") {
		if err := r.rdb.XGroupCreateMkStream(ctx, q, group, "0").Err(); err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return nil, fmt.Errorf("hooks: queue of %q: %w", id, err)
		}
		ss, err = read()
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("hooks: read the queue of %q: %w", id, err)
	}
	for _, s := range ss {
		for _, m := range s.Messages {
			out = append(out, claimed{msg: m, attempt: 1})
		}
	}
	if len(out) >= max {
		return out, nil
	}
	pend, err := r.rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: q, Group: group, Idle: r.opts.RetryFirst,
		Start: "-", End: "+", Count: 32}).Result()
	if err != nil {
		return out, fmt.Errorf("hooks: pending deliveries of %q: %w", id, err)
	}
	for _, p := range pend {
		if len(out) >= max {
			break
		}
		wait := r.backoff(int(p.RetryCount))
		if p.Idle < wait {
			continue
		}
		ms, err := r.rdb.XClaim(ctx, &redis.XClaimArgs{Stream: q, Group: group, Consumer: r.opts.Consumer,
			MinIdle: wait, Messages: []string{p.ID}}).Result()
		if err != nil {
			return out, fmt.Errorf("hooks: claim %s of %q: %w", p.ID, id, err)
		}
		if len(ms) == 0 {
			// Another replica got it first, or the entry was trimmed away
			// (Redis 7 then drops it from the pending list itself).
			continue
		}
		out = append(out, claimed{msg: ms[0], attempt: int(p.RetryCount) + 1})
	}
	return out, nil
}

// backoff is how long a delivery waits after its n-th attempt began:
// RetryFirst, doubling, at most RetryMax.
func (r *Runner) backoff(n int) time.Duration {
	d := r.opts.RetryFirst
	for i := 1; i < n && d < r.opts.RetryMax; i++ {
		d *= 2
	}
	return min(d, r.opts.RetryMax)
}

// maxClaim is the most entries one visit of a board claims.
const maxClaim = 48

// drain claims a board's due entries one at a time, each only once an
// attempt slot is held for it, and makes their attempts at once; it waits
// for them. An entry claimed and then left waiting for a slot (every slot
// busy with slow receivers) past RetryFirst would be claimed by another
// replica too, and sent twice.
func (r *Runner) drain(ctx context.Context, b *board.Board, hooks map[string]Hook, id string) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for range maxClaim {
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		cs, err := r.claim(ctx, id, 1)
		if err != nil || len(cs) == 0 {
			<-r.sem
			return err
		}
		wg.Add(1)
		go func(c claimed) {
			defer func() { <-r.sem; wg.Done() }()
			r.attempt(ctx, b, hooks, c)
		}(cs[0])
	}
	return nil
}

func (r *Runner) attempt(ctx context.Context, b *board.Board, hooks map[string]Hook, c claimed) {
	// A shutdown lets an attempt that has begun finish (within Timeout):
	// cut short, it would be sent again by another replica.
	ctx = context.WithoutCancel(ctx)
	f := c.msg.Values
	str := func(k string) string { s, _ := f[k].(string); return s }
	h, ok := hooks[str("hook")]
	if !ok {
		r.finish(ctx, b.ID, "", c.msg.ID, nil) // the hook was deleted
		return
	}
	start := r.opts.Now()
	a := Attempt{Delivery: c.msg.ID, Event: str("event"), Type: Event(str("type")), At: start.UTC(), Attempt: c.attempt}
	atMs, _ := strconv.ParseInt(str("at"), 10, 64)
	queued := time.UnixMilli(atMs)
	var failed error // why no answer came, in full: for the server's log only
	switch body, err := render(b, f); {
	case !h.Enabled:
		a.Outcome = Skipped
	case start.Sub(queued) > r.opts.GiveUp:
		a.Outcome, a.Error = GaveUp, failTooLate
	case err != nil:
		a.Outcome, a.Error = GaveUp, failUnreadable
		r.log.Error("webhook event unreadable", slog.String("board", b.ID), slog.String("delivery", c.msg.ID), slog.Any("error", err))
	default:
		a.Code, failed = r.post(ctx, h, a, body)
		if failed != nil {
			a.Error = describe(failed)
		}
		a.Millis = r.opts.Now().Sub(start).Milliseconds()
		next := start.Add(r.backoff(c.attempt))
		switch {
		case a.Code >= 200 && a.Code < 300:
			a.Outcome = Delivered
		case next.Sub(queued) > r.opts.GiveUp:
			a.Outcome = GaveUp
		default:
			a.Outcome, a.Next = Retrying, next.UTC()
		}
	}
	level := slog.LevelDebug
	switch {
	case a.Outcome == GaveUp:
		level = slog.LevelWarn
	case failed != nil:
		level = slog.LevelInfo // the detail the hook's log leaves out is here only
	}
	attrs := []slog.Attr{slog.String("board", b.ID), slog.String("hook", h.ID), slog.String("url", RedactURL(h.URL)),
		slog.String("delivery", a.Delivery), slog.String("event", string(a.Type)), slog.Int("attempt", a.Attempt),
		slog.String("outcome", a.Outcome), slog.Int("code", a.Code), slog.String("failure", a.Error)}
	if failed != nil {
		attrs = append(attrs, slog.Any("error", cause(failed)))
	}
	r.log.LogAttrs(ctx, level, "webhook attempt", attrs...)
	r.finish(ctx, b.ID, h.ID, c.msg.ID, &a)
}

// finish logs an attempt, if its hook is still registered, and, unless it
// will be retried, takes the entry off the pending list, in one script
// (one slot): a hook or board deleted while the attempt was in flight gets
// no log back.
func (r *Runner) finish(ctx context.Context, boardID, hookID, entry string, a *Attempt) {
	var js []byte
	if a != nil {
		js, _ = json.Marshal(a)
	}
	ack := "0"
	if a == nil || a.Outcome != Retrying {
		ack = "1"
	}
	err := finishScript.Run(ctx, r.rdb, []string{hooksKey(boardID), logKey(boardID, hookID), queueKey(boardID)},
		hookID, js, logKeep, int64(logTTL/time.Second), group, entry, ack).Err()
	if err != nil {
		// Unacknowledged, the entry is tried again after its backoff.
		r.log.Warn("webhook: record an attempt", slog.String("board", boardID), slog.String("delivery", entry), slog.Any("error", err))
	}
}

// logTTL drops the log of a hook that has had no delivery for a month
// (and of a deleted one whose last attempt was in flight).
const logTTL = 30 * 24 * time.Hour

// post sends one attempt: the status code, or why there was none. The
// answer's body is read (at most 64 KiB, so the connection can be reused)
// and thrown away.
func (r *Runner) post(ctx context.Context, h Hook, a Attempt, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return 0, errBadURL
	}
	ts := r.opts.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Podium-Webhooks/1")
	req.Header.Set(HeaderEvent, string(a.Type))
	req.Header.Set(HeaderDelivery, a.Delivery)
	req.Header.Set(HeaderAttempt, strconv.Itoa(a.Attempt))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(h.Secret, ts, body))
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}
