package redisstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestScoreSessions: on a board with sessions a score lands only with a
// token of its member, once, between the run's minimum and maximum time;
// a token missing, unknown, reused, expired, of another member or too fast
// is refused naming why, single and in a batch, with nothing written
// (the token of a refused write stays good). FCALL, which carries no
// token, is refused; the console's adjustment needs none.
func TestScoreSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}, Sessions: &board.Sessions{MinSeconds: 30, MaxSeconds: 600}})
	if got, _ := f.store.ReadBoard(f.ctx, b.ID); got.Sessions == nil || *got.Sessions != (board.Sessions{MinSeconds: 30, MaxSeconds: 600}) {
		t.Fatalf("stored sessions: %+v", got.Sessions)
	}
	start := f.clock.Now()
	f.clock.Set(start)
	run, err := f.store.StartSession(f.ctx, b.ID, "ann")
	if err != nil || len(run.Token) != 64 || run.Member != "ann" || run.ValidFrom.Sub(run.IssuedAt) != 30*time.Second || run.ExpiresAt.Sub(run.IssuedAt) != 600*time.Second {
		t.Fatalf("start: %+v %v", run, err)
	}
	other, _ := f.store.StartSession(f.ctx, b.ID, "bob")
	refused := func(sub board.Submission, why string) {
		t.Helper()
		_, err := f.store.Submit(f.ctx, b.ID, sub, tester)
		var fe *board.FieldError
		if !errors.Is(err, board.ErrSessionInvalid) || !errors.As(err, &fe) || fe.Field != "session" || !strings.Contains(err.Error(), why) {
			t.Fatalf("%+v: %v, want %q", sub, err, why)
		}
		_, err = f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{sub}, board.BatchOptions{By: tester})
		if !errors.Is(err, board.ErrSessionInvalid) {
			t.Fatalf("batch %+v: %v", sub, err)
		}
	}
	ann := func(token string) board.Submission { return board.Submission{Member: "ann", Score: 10, Session: token} }
	refused(ann(""), "only with a session token")
	refused(ann(strings.Repeat("ab", 32)), "unknown or expired")
	f.clock.Set(start.Add(29*time.Second + 900*time.Millisecond))
	refused(ann(run.Token), "too fast: a run lasts at least 30 s")
	f.clock.Set(start.Add(30 * time.Second))
	refused(ann(other.Token), "belongs to another member")
	if _, ok := f.allTimeScore(b, "ann"); ok {
		t.Fatal("a refused write was applied")
	}
	r := f.submitWith(b, ann(run.Token)) // at the minimum: the token is still good
	if c, _ := r.Change(board.AllTime); c.After.Score != 10 {
		t.Fatalf("with its token: %+v", r)
	}
	refused(ann(run.Token), "used already")
	f.clock.Set(start.Add(600*time.Second + time.Millisecond))
	refused(board.Submission{Member: "bob", Score: 5, Session: other.Token}, "the session expired")
	if s, _ := f.allTimeScore(b, "ann"); s != 10 {
		t.Fatalf("ann at %v", s)
	}
	if _, ok := f.allTimeScore(b, "bob"); ok {
		t.Fatal("bob's expired run was written")
	}
	// The console's adjustment, and outside writers.
	f.submitWith(b, board.Submission{Member: "cat", Score: 3, Session: board.SessionWaived})
	if err := f.store.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, "dan", "incr", "5").Text(); err == nil || !strings.Contains(err.Error(), "session token") {
		t.Fatalf("FCALL on a sessions board: %v", err)
	}
	// A board without sessions starts none.
	plain := f.board(board.Board{ID: b.ID + "-plain"})
	if _, err := f.store.StartSession(f.ctx, plain.ID, "ann"); !errors.Is(err, board.ErrInvalidInput) {
		t.Fatalf("a session on a board without: %v", err)
	}
}

func (f *fixture) submitWith(b *board.Board, sub board.Submission) board.Result {
	f.t.Helper()
	r, err := f.store.Submit(f.ctx, b.ID, sub, tester)
	if err != nil {
		f.t.Fatalf("submit %+v: %v", sub, err)
	}
	return r
}

// TestSessionsOnTheEmbeddedStore: the run token's check runs on miniredis
// too.
func TestSessionsOnTheEmbeddedStore(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	c := newClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	s := NewStore(rdb, WithClock(c.Now))
	ctx := context.Background()
	b, err := s.CreateBoard(ctx, board.Board{ID: "mini", Title: "Mini", Sessions: &board.Sessions{MinSeconds: 0, MaxSeconds: 60}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.StartSession(ctx, b.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: 1, Session: run.Token}, tester); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(ctx, b.ID, board.Submission{Member: "ann", Score: 1, Session: run.Token}, tester); !errors.Is(err, board.ErrSessionInvalid) {
		t.Fatalf("reused: %v", err)
	}
}

// TestSessionOfADeletedBoard: a board deleted and made again under its id
// is a new board: a run started on the old one is unknown to it.
func TestSessionOfADeletedBoard(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	def := board.Board{Sessions: &board.Sessions{MinSeconds: 0, MaxSeconds: 600}}
	b := f.board(def)
	run, err := f.store.StartSession(f.ctx, b.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	def.ID = b.ID
	f.clock.Set(f.clock.Now().Add(time.Second)) // the board made again a second later
	b = f.board(def)
	_, err = f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 10, Session: run.Token}, tester)
	if !errors.Is(err, board.ErrSessionInvalid) || !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("the old board's run on the new board: %v", err)
	}
	again, err := f.store.StartSession(f.ctx, b.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if r := f.submitWith(b, board.Submission{Member: "ann", Score: 10, Session: again.Token}); r.Member != "ann" {
		t.Fatalf("the new board's run: %+v", r)
	}
}
