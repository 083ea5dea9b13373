package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"podium/board"
)

// Group commit. Submit hands its submission to a queue per board and author;
// whoever finds no call in flight for that queue starts one, and whatever
// arrives while a call is in flight goes together in the next (up to
// MaxBatch). A lone writer waits for nothing; under load, concurrent writers
// share one script call, so a board takes scores at the rate Redis runs the
// script, not at the rate of round trips. Each item is applied or refused on
// its own (the script's "each" mode), and each caller gets its own result.

type groupKey struct {
	board string
	by    board.Author
}

type waiter struct {
	sub  board.Submission
	at   time.Time // when it arrived: the time its tie-break records
	res  board.Result
	err  error
	done chan struct{}
}

// committer holds the queues; a queue present in the map has a call in flight.
type committer struct {
	mu     sync.Mutex
	queues map[groupKey][]*waiter
}

// Submit applies one score to every enabled period of the board at once, and
// records it in the board's audit log by, in the same step. Nothing is
// written if a check fails, including a result that would leave the range
// the board keeps exactly. Once the submission is handed over it completes
// (or times out) even if ctx is cancelled, so a change is never left
// half-known: the caller still waits for its outcome.
func (s writer) Submit(ctx context.Context, boardID string, sub board.Submission, by board.Author) (board.Result, error) {
	if err := by.Check(); err != nil {
		return board.Result{}, fmt.Errorf("board: submit %q to %q: %w", sub.Member, boardID, err)
	}
	w := &waiter{sub: sub, done: make(chan struct{})}
	k := groupKey{board: boardID, by: by}
	s.group.mu.Lock()
	w.at = s.now() // under the lock: a queue's times follow its order
	if s.group.queues == nil {
		s.group.queues = map[groupKey][]*waiter{}
	}
	q, busy := s.group.queues[k]
	s.group.queues[k] = append(q, w)
	s.group.mu.Unlock()
	if !busy {
		go s.commit(context.WithoutCancel(ctx), k)
	}
	<-w.done
	return w.res, w.err
}

// commit sends the queue's submissions until it is empty.
func (s writer) commit(ctx context.Context, k groupKey) {
	for {
		s.group.mu.Lock()
		q := s.group.queues[k]
		if len(q) == 0 {
			delete(s.group.queues, k)
			s.group.mu.Unlock()
			return
		}
		take, rest := nextCall(q)
		s.group.queues[k] = rest
		s.group.mu.Unlock()
		s.submitEach(ctx, k, take)
	}
}

// nextCall takes up to MaxBatch waiters in order, leaving for the next call
// any whose idempotency key repeats one taken: the script checks keys before
// it writes any, so a repeat in one call would be applied twice.
func nextCall(q []*waiter) (take, rest []*waiter) {
	keys := map[string]bool{}
	rest = []*waiter{} // not nil: the queue stays marked busy
	for _, w := range q {
		k := w.sub.IdempotencyKey
		if len(take) == board.MaxBatch || (k != "" && keys[k]) {
			rest = append(rest, w)
			continue
		}
		if k != "" {
			keys[k] = true
		}
		take = append(take, w)
	}
	return take, rest
}

// submitEach makes one script call for the waiters and answers each.
func (s writer) submitEach(ctx context.Context, k groupKey, ws []*waiter) {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	errs := make([]error, len(ws))
	defer func() {
		for i, w := range ws {
			if errs[i] != nil {
				w.err = fmt.Errorf("board: submit %q to %q: %w", w.sub.Member, k.board, errs[i])
			}
			close(w.done)
		}
	}()
	fail := func(err error) {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	b, err := s.boardForWrite(ctx, k.board)
	if err != nil {
		fail(err)
		return
	}
	var subs []board.Submission
	var times []time.Time
	var idx []int
	for i, w := range ws {
		if err := board.CheckSubmission(&b, &w.sub); err != nil {
			errs[i] = err
			continue
		}
		subs = append(subs, w.sub)
		times = append(times, w.at)
		idx = append(idx, i)
	}
	if len(subs) == 0 {
		return
	}
	refused := make([]error, len(subs))
	st, rest, sent, err := s.runSubmit(ctx, &b, subs, times, board.BatchOptions{By: k.by}, false, refused)
	for j, err := range refused {
		if err != nil {
			errs[idx[j]] = err
		}
	}
	if err != nil {
		fail(err)
		return
	}
	switch st {
	case "ok":
	case "nf":
		fail(fmt.Errorf("board %q: %w", k.board, board.ErrNotFound))
		return
	case "archived":
		fail(archivedErr(k.board, rest))
		return
	case "closed":
		fail(contestErr(k.board, rest))
		return
	default:
		fail(fmt.Errorf("unexpected reply %q", st))
		return
	}
	if len(sent) == 0 {
		return // every one refused by the definition read again
	}
	docs, err := decodeItems(rest, len(sent))
	if err != nil {
		fail(err)
		return
	}
	answerEach(&b, ws, idx, sent, docs, errs)
}

// answerEach gives each waiter its item of the script's reply: docs are the
// items of the submissions sent (indexes into the checked ones), idx maps a
// checked submission to its waiter, and errs collects each waiter's error.
func answerEach(b *board.Board, ws []*waiter, idx, sent []int, docs []itemJSON, errs []error) {
	answered := make([]bool, len(ws))
	for j, d := range docs {
		i := idx[sent[j]]
		answered[i] = true
		sub := &ws[i].sub
		switch d.Err {
		case "":
		case "reused":
			errs[i] = board.NewFieldError(board.ErrIdempotencyReused, "idempotency_key", "%q was already used for a different submission; use a new key for a new request", sub.IdempotencyKey)
			continue
		case "range":
			errs[i] = rangeErr(b, *sub, d.P, d.Old)
			continue
		case "segfull":
			errs[i] = segmentFullErr(d.Attr)
			continue
		case "rule":
			errs[i] = ruleErr(b, d.Rule, d.Bound)
			continue
		case "session":
			errs[i] = board.SessionError(d.Why, b.Sessions)
			continue
		default:
			errs[i] = fmt.Errorf("unexpected item error %q", d.Err)
			continue
		}
		r, err := decodeChanges(b, d.Periods, !d.NoRanks)
		if err != nil {
			errs[i] = err
			continue
		}
		r.Member, r.Replayed = sub.Member, d.Replayed
		r.Held, r.HeldID, r.Rule = d.Held, d.HeldID, d.Rule
		ws[i].res = r
	}
	for i := range ws {
		if !answered[i] && errs[i] == nil {
			errs[i] = errors.New("the store's reply has no result for it") // a bug if ever seen
		}
	}
}
