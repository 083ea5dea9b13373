package redisstore

import (
	"errors"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// TestHeldWrites: on a board that holds, a write past a rule is kept
// unapplied with who, what, which rule and when (once, however often its
// idempotency key is sent again); approving applies it with its original
// time for the tie-break, after the contest's close too; rejecting drops
// it; both are audited by the script that changes them; the queue is
// bounded.
func TestHeldWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	closes := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	b := f.board(board.Board{Periods: []board.Kind{board.Daily, board.AllTime}, ClosesAt: closes,
		Rules: &board.Rules{MaxValue: units(10), OnBreak: board.RulesHold}})
	sent := f.clock.Now()
	f.clock.Set(sent)
	res, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Name: "Ann", Score: 12, Op: board.Set, IdempotencyKey: "k1"}, board.Author{Actor: "api:game"})
	if err != nil || !res.Held || res.Rule != board.RuleMaxValue || len(res.Changes) != 0 || res.HeldID == 0 {
		t.Fatalf("held: %+v %v", res, err)
	}
	if again, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Name: "Ann", Score: 12, Op: board.Set, IdempotencyKey: "k1"}, board.Author{Actor: "api:game"}); err != nil || !again.Held || !again.Replayed {
		t.Fatalf("a retry: %+v %v", again, err)
	}
	batch, err := f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "bob", Score: 12, Op: board.Set}, {Member: "cat", Score: 12, Op: board.Set}, {Member: "dan", Score: 3}}, board.BatchOptions{By: tester})
	if err != nil || !batch[0].Held || !batch[1].Held || batch[2].Held {
		t.Fatalf("a batch: %+v %v", batch, err)
	}
	if _, ok := f.allTimeScore(b, "ann"); ok {
		t.Fatal("a held write was applied")
	}
	if s, _ := f.allTimeScore(b, "dan"); s != 3 {
		t.Fatalf("dan, beside two held writes, has %v", s)
	}
	held, err := f.store.Held(f.ctx, b.ID)
	if err != nil || len(held) != 3 {
		t.Fatalf("held: %+v %v", held, err)
	}
	if h := held[0]; h.Member != "ann" || h.Name != "Ann" || h.Op != board.Set || h.Value != 12 || h.Rule != board.RuleMaxValue || h.At.Before(sent) || h.At.Sub(sent) > time.Second || h.By != "api:game" {
		t.Fatalf("the first held write: %+v", h)
	}
	// Eve reaches 12 legitimately after ann sent hers, before the approval.
	f.store.Submit(f.ctx, b.ID, board.Submission{Member: "eve", Score: 6}, tester)
	f.store.Submit(f.ctx, b.ID, board.Submission{Member: "eve", Score: 6}, tester)
	// Approved after the contest closed: moderation of a write sent in time.
	f.clock.Set(closes.Add(time.Hour))
	moderator := board.Author{Actor: "admin:mo", Reason: "checked the replay"}
	r, err := f.store.ApproveHeld(f.ctx, b.ID, held[0].ID, moderator)
	if c, _ := r.Change(board.AllTime); err != nil || c.After.Score != 12 || c.After.Rank != 1 {
		t.Fatalf("approve: %+v %v", r, err)
	}
	if _, err := f.store.ApproveHeld(f.ctx, b.ID, held[0].ID, moderator); !errors.Is(err, board.ErrHeldGone) {
		t.Fatalf("approving twice: %v", err)
	}
	if got := rows(f.page(b, board.AllTime, 0, 10)); strings.Join(got, ",") != "1 ann 12,1 eve 12,3 dan 3" {
		t.Fatalf("standings %v", got)
	}
	pg := f.page(b, board.AllTime, 0, 10)
	if pg.Entries[0].Member != "ann" {
		t.Fatalf("ann sent 12 first: she ranks first among the tied, got %v", rows(pg))
	}
	gone, err := f.store.RejectHeld(f.ctx, b, held[1].ID, moderator)
	if err != nil || gone.Member != "bob" {
		t.Fatalf("reject: %+v %v", gone, err)
	}
	if _, err := f.store.RejectHeld(f.ctx, b, held[1].ID, moderator); !errors.Is(err, board.ErrHeldGone) {
		t.Fatalf("rejecting twice: %v", err)
	}
	if left, _ := f.store.Held(f.ctx, b.ID); len(left) != 1 || left[0].Member != "cat" {
		t.Fatalf("left: %+v", left)
	}
	if _, ok := f.allTimeScore(b, "bob"); ok {
		t.Fatal("a rejected write was applied")
	}
	entries, err := f.rdb.XRange(f.ctx, AuditActorStream(b.ID, "admin:mo"), "-", "+").Result()
	if err != nil || len(entries) != 2 {
		t.Fatalf("the moderator's audit entries: %v %v", entries, err)
	}
	if r, _ := entries[0].Values["reason"].(string); !strings.Contains(r, "approved held write #1 (rule max_value") || !strings.Contains(r, "checked the replay") {
		t.Fatalf("approval audited as %v", entries[0].Values)
	}
	if a, _ := entries[1].Values["action"].(string); a != "score.reject" || entries[1].Values["member"] != "bob" {
		t.Fatalf("rejection audited as %v", entries[1].Values)
	}
}

// TestHeldQueueIsBounded: past board.MaxHeld a write breaking a rule is
// refused, naming it, rather than held.
func TestHeldQueueIsBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Rules: &board.Rules{MaxValue: units(10), OnBreak: board.RulesHold}})
	subs := make([]board.Submission, board.MaxHeld)
	for i := range subs {
		subs[i] = board.Submission{Member: "m" + itoa(i), Score: 11}
	}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "one-more", Score: 11}, tester); !errors.Is(err, board.ErrRuleBroken) {
		t.Fatalf("past the queue's bound: %v", err)
	}
	if n, _ := f.rdb.HLen(f.ctx, heldKey(b.ID)).Result(); n != board.MaxHeld {
		t.Fatalf("%d held", n)
	}
}

// TestErasureDropsHeldWrites: erasing a member drops its held writes, its
// recent rises and its score sessions, and leaves others' held writes alone.
func TestErasureDropsHeldWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Rules: &board.Rules{MaxValue: units(10), MaxRisePerHour: units(100), OnBreak: board.RulesHold},
		Sessions: &board.Sessions{MinSeconds: 0, MaxSeconds: 600}})
	f.submitWith(b, board.Submission{Member: "ann", Score: 5, Session: board.SessionWaived})
	run, err := f.store.StartSession(f.ctx, b.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ann", "bob"} {
		if res, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: m, Score: 11, Session: board.SessionWaived}, tester); err != nil || !res.Held {
			t.Fatalf("%s: %+v %v", m, res, err)
		}
	}
	if n, _ := f.rdb.Exists(f.ctx, tagOf(b.ID)+":rise:ann").Result(); n != 1 {
		t.Fatal("ann's rises are not kept")
	}
	f.erase(b, "ann", board.Pseudonymise)
	if left, _ := f.store.Held(f.ctx, b.ID); len(left) != 1 || left[0].Member != "bob" {
		t.Fatalf("held after the erasure: %+v", left)
	}
	if n, _ := f.rdb.Exists(f.ctx, tagOf(b.ID)+":rise:ann", sessionKey(b.ID, run.Token), memberSessionsKey(b.ID, "ann")).Result(); n != 0 {
		t.Fatalf("%d of ann's rises and runs outlived her erasure", n)
	}
}

// TestHeldThroughFCALL: an outside writer's score past a rule of a board
// that holds is held too, its answer saying so.
func TestHeldThroughFCALL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Rules: &board.Rules{MaxValue: units(10), OnBreak: board.RulesHold}})
	if err := f.store.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	out, err := f.rdb.FCall(f.ctx, "podium_submit", []string{defKey(b.ID)}, "ann", "incr", "11").Text()
	if err != nil || out != `{"result":{"member":"ann","held":true,"rule":"max_value","periods":[]}}` {
		t.Fatalf("FCALL past a rule: %s %v", out, err)
	}
	if held, _ := f.store.Held(f.ctx, b.ID); len(held) != 1 || held[0].By != "redis:fcall" {
		t.Fatalf("held: %+v", held)
	}
}

// TestApproveAfterAnAttributeWent: a held write's segment values are
// applied on approval only for attributes the board still has: one taken
// off meanwhile (its standings dropped) is not made again by the approval.
func TestApproveAfterAnAttributeWent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Segments: []string{"country", "class"}, Rules: &board.Rules{MaxValue: units(10), OnBreak: board.RulesHold}})
	res, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 11, Segments: map[string]string{"country": "NO", "class": "7b"}}, tester)
	if err != nil || !res.Held {
		t.Fatalf("held: %+v %v", res, err)
	}
	nb := *b
	nb.Segments = []string{"class"}
	if _, err := f.store.UpdateBoard(f.ctx, nb); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ApproveHeld(f.ctx, b.ID, res.HeldID, board.Author{Actor: "admin:mo"}); err != nil {
		t.Fatal(err)
	}
	if keys, _ := f.rdb.Keys(f.ctx, tagOf(b.ID)+":seg:country*").Result(); len(keys) != 0 {
		t.Fatalf("the approval made the dropped attribute's keys again: %v", keys)
	}
	if keys, _ := f.rdb.Keys(f.ctx, tagOf(b.ID)+":seg:class*").Result(); len(keys) == 0 {
		t.Fatal("the approval left out the attribute the board still has")
	}
}
