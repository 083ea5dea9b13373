package hooks

import (
	"encoding/json"
	"testing"
	"time"

	"podium/board"
)

// TestScoreHeld: a score held for review is announced once to each hook
// that wants score.held and was made before it was held, with who, what,
// which rule, when and by whom; a score decided before the tick is passed
// over.
func TestScoreHeld(t *testing.T) {
	t.Parallel()
	f := newFixture(t, wednesday)
	ten := int64(10)
	f.b.Rules = &board.Rules{MaxValue: &ten, OnBreak: board.RulesHold}
	b, err := f.store.UpdateBoard(f.ctx, f.b)
	if err != nil {
		t.Fatal(err)
	}
	f.b = b
	recv, leaders := newReceiver(t, nil), newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{ScoreHeld}, AllPeriods: true, Top: 3})
	f.hook(leaders, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 3})
	f.clock.Add(time.Second)
	held := func(member string, v float64) board.Result {
		t.Helper()
		res, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: member, Name: "Ann", Score: v}, board.Author{Actor: "api:game"})
		if err != nil || !res.Held {
			t.Fatalf("%+v %v", res, err)
		}
		return res
	}
	first := held("ann", 11)
	gone := held("bob", 12)
	if _, err := f.store.RejectHeld(f.ctx, &f.b, gone.HeldID, board.Author{Actor: "admin:mo"}); err != nil {
		t.Fatal(err)
	}
	r1, r2 := f.runner(recv, Options{}), f.runner(recv, Options{Consumer: "second"})
	race(t, f.ctx, r1, r2)
	f.pass(r1)
	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Type != ScoreHeld || !got[0].Verified {
		t.Fatalf("deliveries %+v", got)
	}
	var body struct{ Held json.RawMessage }
	if err := json.Unmarshal(got[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var h Held
	if err := json.Unmarshal(body.Held, &h); err != nil || h.ID != first.HeldID || h.Member != "ann" || h.Name != "Ann" || h.Op != "incr" ||
		h.Value != "0.11" || h.Rule != board.RuleMaxValue || h.By != "api:game" || h.Sent.IsZero() {
		t.Fatalf("held %s (%v)", body.Held, err)
	}
	if n := len(leaders.deliveries()); n != 0 {
		t.Fatalf("a held score made %d leader deliveries", n)
	}
	held("cat", 13)
	f.pass(r1)
	if n := len(recv.deliveries()); n != 2 {
		t.Fatalf("%d deliveries after a second held score", n)
	}
}

// TestScoreHeldAfterALongHistory: a hook that wants score.held, made on a
// board that held and decided many scores before, hears of the next held
// score at the next tick, not after ticks spent on ids long decided (a
// hundred a tick: 10,000 held in a board's life were 100 seconds of
// silence).
func TestScoreHeldAfterALongHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t, wednesday)
	ten := int64(10)
	f.b.Rules = &board.Rules{MaxValue: &ten, OnBreak: board.RulesHold}
	b, err := f.store.UpdateBoard(f.ctx, f.b)
	if err != nil {
		t.Fatal(err)
	}
	f.b = b
	for range 3 {
		subs := make([]board.Submission, board.MaxBatch)
		for i := range subs {
			subs[i] = board.Submission{Member: "ann", Score: 11}
		}
		if _, err := f.store.SubmitBatch(f.ctx, f.b.ID, subs, board.BatchOptions{By: board.Author{Actor: "api:game"}}); err != nil {
			t.Fatal(err)
		}
		held, err := f.store.Held(f.ctx, f.b.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range held {
			if _, err := f.store.RejectHeld(f.ctx, &f.b, h.ID, board.Author{Actor: "admin:mo"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	recv := newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{ScoreHeld}, AllPeriods: true, Top: 3})
	f.clock.Add(time.Second)
	if res, err := f.store.Submit(f.ctx, f.b.ID, board.Submission{Member: "bob", Score: 12}, board.Author{Actor: "api:game"}); err != nil || !res.Held {
		t.Fatalf("%+v %v", res, err)
	}
	r := f.runner(recv, Options{})
	f.pass(r)
	eventually(t, 10*time.Second, "the held score's delivery", func() bool { return len(recv.deliveries()) == 1 })
}
