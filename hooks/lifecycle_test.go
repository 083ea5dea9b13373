package hooks

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"podium/board"
)

func TestDisabledAndDeletedHooks(t *testing.T) {
	f := newFixture(t, time.Now())
	recv := newReceiver(t, nil)
	off := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	gone := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	r := f.runner(recv, Options{Now: time.Now})
	for _, h := range []Hook{off, gone} {
		if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.reg.SetEnabled(f.ctx, f.b.ID, off.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.Delete(f.ctx, f.b.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	f.pass(r)
	if n := len(recv.deliveries()); n != 0 {
		t.Fatalf("%d deliveries to a disabled or deleted hook", n)
	}
	log, _ := f.reg.Attempts(f.ctx, f.b.ID, off.ID)
	if len(log) != 1 || log[0].Outcome != Skipped {
		t.Fatalf("disabled hook's log: %+v", log)
	}
	if n, _ := f.rdb.XPending(f.ctx, queueKey(f.b.ID), group).Result(); n.Count != 0 {
		t.Fatalf("%d deliveries still pending", n.Count)
	}
	if _, err := f.reg.Get(f.ctx, f.b.ID, gone.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted hook: %v", err)
	}
}

// A deleted board takes its hooks with it, in the same step: every key of
// its webhooks (registrations and secrets, state, counter, queue, logs) is
// gone before any runner looks, and nothing brings one back; a board made
// again under its id starts without them.
func TestDeletedBoardDropsItsHooks(t *testing.T) {
	f := newFixture(t, time.Now())
	recv := newReceiver(t, nil)
	h := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	r := f.runner(recv, Options{Now: time.Now})
	f.pass(r) // the first look: a state
	if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	f.pass(r) // a delivery: a log
	hookKeys := func() []string {
		t.Helper()
		keys, err := f.rdb.Keys(f.ctx, hooksKey(f.b.ID)+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		return keys
	}
	if got, want := hookKeys(), []string{hooksKey(f.b.ID), logKey(f.b.ID, h.ID), queueKey(f.b.ID), seqKey(f.b.ID), stateKey(f.b.ID)}; !slices.Equal(got, want) {
		t.Fatalf("keys before the delete: %v, want %v", got, want)
	}
	if err := f.store.DeleteBoard(f.ctx, f.b.ID); err != nil {
		t.Fatal(err)
	}
	if left := hookKeys(); len(left) != 0 {
		t.Fatalf("hook keys left after the board was deleted: %v", left)
	}
	// Nothing writes them back: a test event, a registration made on the
	// board as it was loaded before the delete.
	if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("test event to a deleted board's hook: %v", err)
	}
	if _, err := f.reg.Create(f.ctx, &f.b, Input{URL: "https://example.com/", Events: []Event{NewLeader}, AllPeriods: true, Top: 1}, "admin:test"); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("a hook registered on a deleted board: %v", err)
	}
	f.pass(r, r)
	if left := hookKeys(); len(left) != 0 {
		t.Fatalf("hook keys back after the board was deleted: %v", left)
	}
	if in, _ := f.rdb.SIsMember(f.ctx, hookedKey, f.b.ID).Result(); in {
		t.Fatal("the deleted board is still visited")
	}

	// Deleted and made again before the runner looked: the new board does
	// not inherit the old one's hooks, whatever the clocks say.
	b, err := f.store.CreateBoard(f.ctx, f.b)
	if err != nil {
		t.Fatal(err)
	}
	f.b = b
	f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	if err := f.store.DeleteBoard(f.ctx, f.b.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(time.Second)
	if f.b, err = f.store.CreateBoard(f.ctx, f.b); err != nil {
		t.Fatal(err)
	}
	kept := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	f.pass(r)
	if hs, _ := f.reg.List(f.ctx, f.b.ID); len(hs) != 1 || hs[0].ID != kept.ID {
		t.Fatalf("hooks after the board was made again: %+v", hs)
	}
}

// A board deleted while an attempt to one of its hooks is in flight gets
// no log back when the attempt ends.
func TestBoardDeletedMidAttemptLeavesNoKeys(t *testing.T) {
	f := newFixture(t, time.Now())
	recv := newReceiver(t, func(int, delivery) int {
		if err := f.store.DeleteBoard(f.ctx, f.b.ID); err != nil {
			t.Error(err)
		}
		return http.StatusOK
	})
	h := f.hook(recv, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	if _, err := f.reg.SendTest(f.ctx, f.b.ID, h.ID); err != nil {
		t.Fatal(err)
	}
	f.pass(f.runner(recv, Options{Now: time.Now}))
	if len(recv.deliveries()) != 1 {
		t.Fatalf("%d deliveries, want 1", len(recv.deliveries()))
	}
	if left, _ := f.rdb.Keys(f.ctx, hooksKey(f.b.ID)+"*").Result(); len(left) != 0 {
		t.Fatalf("hook keys after the board was deleted mid-attempt: %v", left)
	}
}
