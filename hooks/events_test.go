package hooks

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// Wednesday of ISO week 2026-W48, at noon.
var wednesday = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func TestLeaderAndTopEvents(t *testing.T) {
	f := newFixture(t, wednesday)
	recv := newReceiver(t, nil)
	f.submit("ann", 500)
	f.submit("bob", 400)
	h := f.hook(recv, Input{Events: []Event{NewLeader, TopEntered}, Periods: []board.Kind{board.Weekly}, Top: 2})
	r := f.runner(recv, Options{})

	f.pass(r) // the first look: the standings found are not announced
	if got := recv.deliveries(); len(got) != 0 {
		t.Fatalf("first look announced %d deliveries, want none", len(got))
	}
	f.submit("cat", 450) // enters the top 2, pushing bob out; ann still leads
	f.pass(r)
	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Type != TopEntered {
		t.Fatalf("after cat: %+v", got)
	}
	d := got[0]
	if !d.Verified {
		t.Fatalf("signature %q of %s does not verify", d.Header.Get(HeaderSignature), d.Body)
	}
	if d.Header.Get(HeaderEvent) != "top.entered" || d.Header.Get(HeaderAttempt) != "1" || d.Header.Get(HeaderDelivery) == "" ||
		d.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers: %v", d.Header)
	}
	want := `[{"rank":2,"member":"cat","name":"CAT","score":4.5}]`
	if js, _ := json.Marshal(d.Payload.Entered); string(js) != want {
		t.Fatalf("entered %s, want %s", js, want)
	}
	if js, _ := json.Marshal(d.Payload.Top); string(js) != `[{"rank":1,"member":"ann","name":"ANN","score":5},`+want[1:] {
		t.Fatalf("top %s", js)
	}
	var per struct{ Kind, Key, Title string }
	if err := json.Unmarshal(d.Payload.Period, &per); err != nil || per.Kind != "week" || per.Key != "2026-W48" {
		t.Fatalf("period %s (%v)", d.Payload.Period, err)
	}
	if d.Payload.Board != f.b.ID || d.Payload.ID == "" {
		t.Fatalf("payload %+v", d.Payload)
	}

	f.submit("bob", 900) // a new leader, and back in the top 2
	f.pass(r)
	got = recv.deliveries()[1:]
	if len(got) != 2 {
		t.Fatalf("after bob leads: %d deliveries, want leader.changed and top.entered", len(got))
	}
	var leader *delivery
	for i := range got {
		if got[i].Payload.Type == NewLeader {
			leader = &got[i]
		}
	}
	if leader == nil || leader.Payload.Leader == nil || leader.Payload.Leader.Member != "bob" || leader.Payload.Leader.Score != "9" ||
		leader.Payload.Previous == nil || leader.Payload.Previous.Member != "ann" || leader.Payload.Previous.Name != "ANN" {
		t.Fatalf("leader event: %+v", got)
	}
	if !leader.Verified {
		t.Fatal("leader event signature does not verify")
	}

	f.pass(r) // nothing changed: nothing sent
	if n := len(recv.deliveries()); n != 3 {
		t.Fatalf("%d deliveries after a quiet pass, want 3", n)
	}
	log, err := f.reg.Attempts(f.ctx, f.b.ID, h.ID)
	if err != nil || len(log) != 3 || log[0].Outcome != Delivered || log[0].Code != 200 || log[0].Attempt != 1 {
		t.Fatalf("log %+v (%v)", log, err)
	}
	if n, _ := f.rdb.XPending(f.ctx, queueKey(f.b.ID), group).Result(); n.Count != 0 {
		t.Fatalf("%d deliveries still pending", n.Count)
	}
}

// A new period of a kind already followed starts empty: its first leader
// is announced, with no previous one.
func TestNewPeriodFirstLeader(t *testing.T) {
	f := newFixture(t, wednesday)
	recv := newReceiver(t, nil)
	f.submit("ann", 500)
	f.hook(recv, Input{Events: []Event{NewLeader}, Periods: []board.Kind{board.Daily}, Top: 1})
	r := f.runner(recv, Options{})
	f.pass(r)
	f.clock.Set(wednesday.Add(12*time.Hour + time.Second)) // Thursday
	f.pass(r)
	if n := len(recv.deliveries()); n != 0 {
		t.Fatalf("an empty new day announced %d deliveries", n)
	}
	f.submit("bob", 100)
	f.pass(r)
	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Leader == nil || got[0].Payload.Leader.Member != "bob" || got[0].Payload.Previous != nil {
		t.Fatalf("first leader of Thursday: %+v", got)
	}
	if !json.Valid(got[0].Body) || !strings.Contains(string(got[0].Body), `"previous":null`) {
		t.Fatalf("body %s has no \"previous\": null", got[0].Body)
	}
}

func TestPeriodClosedOnceAfterGrace(t *testing.T) {
	f := newFixture(t, wednesday)
	recv := newReceiver(t, nil)
	old := newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{PeriodClosed}, Periods: []board.Kind{board.Daily}, Top: 2})
	f.submit("ann", 300)
	f.submit("bob", 700)
	f.submit("cat", 500)
	r := f.runner(recv, Options{Grace: time.Minute})
	r2 := f.runner(recv, Options{Grace: time.Minute, Consumer: "second"})
	f.pass(r)
	if n := len(recv.deliveries()); n != 0 {
		t.Fatalf("the day before the hook existed was announced (%d deliveries)", n)
	}
	midnight := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	f.clock.Set(midnight.Add(30 * time.Second)) // within the grace
	f.pass(r)
	if n := len(recv.deliveries()); n != 0 {
		t.Fatalf("announced within the grace (%d deliveries)", n)
	}
	// A hook made after the day ended is not told of it.
	f.hook(old, Input{Events: []Event{PeriodClosed}, AllPeriods: true, Top: 5})
	f.clock.Set(midnight.Add(2 * time.Minute))
	f.pass(r, r2, r, r2)
	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Type != PeriodClosed {
		t.Fatalf("closed: %+v", got)
	}
	if js, _ := json.Marshal(got[0].Payload.Top); string(js) != `[{"rank":1,"member":"bob","name":"BOB","score":7},{"rank":2,"member":"cat","name":"CAT","score":5}]` {
		t.Fatalf("final top %s", js)
	}
	var per struct{ Key string }
	_ = json.Unmarshal(got[0].Payload.Period, &per)
	if per.Key != "2026-11-25" || !got[0].Verified {
		t.Fatalf("period %s, verified %v", got[0].Payload.Period, got[0].Verified)
	}
	if n := len(old.deliveries()); n != 0 {
		t.Fatalf("a hook made after the day ended got %d deliveries", n)
	}
}

func TestEmptyClosedPeriodSendsEmptyTop(t *testing.T) {
	f := newFixture(t, wednesday)
	recv := newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{PeriodClosed}, Periods: []board.Kind{board.Daily}, Top: 3})
	r := f.runner(recv, Options{Grace: time.Minute})
	f.clock.Set(time.Date(2026, 11, 26, 0, 5, 0, 0, time.UTC))
	f.pass(r)
	got := recv.deliveries()
	if len(got) != 1 || !strings.Contains(string(got[0].Body), `"top":[]`) {
		t.Fatalf("empty day closed: %+v", got)
	}
}

// A frozen board announces nothing: its standings are a secret until the
// reveal, and the first pass after it announces what changed meanwhile.
func TestFrozenBoardWaitsForTheReveal(t *testing.T) {
	f := newFixture(t, wednesday)
	recv := newReceiver(t, nil)
	f.submit("ann", 500)
	f.hook(recv, Input{Events: []Event{NewLeader}, Periods: []board.Kind{board.Weekly}, Top: 3})
	r := f.runner(recv, Options{})
	f.pass(r) // the first look
	if _, err := f.store.Freeze(f.ctx, f.b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.submit("bob", 900)
	f.pass(r)
	if got := recv.deliveries(); len(got) != 0 {
		t.Fatalf("a frozen board announced %d deliveries", len(got))
	}
	if _, err := f.store.Unfreeze(f.ctx, f.b.ID); err != nil {
		t.Fatal(err)
	}
	f.pass(r)
	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Type != NewLeader {
		t.Fatalf("after the reveal: %+v", got)
	}
}

// Days that close while a board is frozen are announced at the reveal, each
// once.
func TestClosedPeriodsCatchUpAfterAFreeze(t *testing.T) {
	f := newFixture(t, wednesday)
	recv := newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{PeriodClosed}, Periods: []board.Kind{board.Daily}, Top: 1})
	f.submit("ann", 300)
	r := f.runner(recv, Options{Grace: time.Minute})
	f.clock.Set(time.Date(2026, 11, 26, 0, 5, 0, 0, time.UTC))
	f.pass(r) // Wednesday 25th announced: the mark
	if _, err := f.store.Freeze(f.ctx, f.b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, day := range []int{27, 28, 29} {
		f.clock.Set(time.Date(2026, 11, day, 0, 5, 0, 0, time.UTC))
		f.pass(r)
	}
	if n := len(recv.deliveries()); n != 1 {
		t.Fatalf("%d deliveries while frozen, want the one before", n)
	}
	if _, err := f.store.Unfreeze(f.ctx, f.b.ID); err != nil {
		t.Fatal(err)
	}
	f.pass(r)
	f.pass(r)
	var keys []string
	for _, d := range recv.deliveries() {
		var per struct{ Key string }
		_ = json.Unmarshal(d.Payload.Period, &per)
		keys = append(keys, per.Key)
	}
	slices.Sort(keys) // queued oldest first, but delivered at once
	if got := strings.Join(keys, " "); got != "2026-11-25 2026-11-26 2026-11-27 2026-11-28" {
		t.Fatalf("closed days announced: %s", got)
	}
}

// A hook keeps the periods it ticked: one of all time only, registered
// while the board kept nothing else, hears nothing of the day the board
// enables later; one registered for every period hears both.
func TestTickedPeriodsStayTicked(t *testing.T) {
	f := newFixture(t, wednesday)
	def := f.b
	def.ID, def.Periods, def.DefaultPeriod = def.ID+"-all", []board.Kind{board.AllTime}, board.AllTime
	b, err := f.store.CreateBoard(f.ctx, def)
	if err != nil {
		t.Fatal(err)
	}
	f.b = b
	ticked, every := newReceiver(t, nil), newReceiver(t, nil)
	h := f.hook(ticked, Input{Events: []Event{NewLeader}, Periods: []board.Kind{board.AllTime}, Top: 1})
	f.hook(every, Input{Events: []Event{NewLeader}, AllPeriods: true, Top: 1})
	if got, _ := f.reg.Get(f.ctx, b.ID, h.ID); !slices.Equal(got.Periods, []board.Kind{board.AllTime}) {
		t.Fatalf("stored periods %v, want [all]", got.Periods)
	}
	r := NewRunner(f.rdb, f.store, f.reg, Options{Now: f.clock.Now, Timeout: 2 * time.Second, RetryFirst: 3 * time.Second,
		Client: ticked.client(2 * time.Second)}) // both receivers are httptest servers: one trust store
	f.pass(r)
	def = b
	def.Periods = []board.Kind{board.AllTime, board.Daily}
	if f.b, err = f.store.UpdateBoard(f.ctx, def); err != nil {
		t.Fatal(err)
	}
	f.pass(r) // the first look at the day
	f.submit("ann", 500)
	f.pass(r)
	kinds := func(r *receiver) []string {
		var out []string
		for _, d := range r.deliveries() {
			var p struct{ Kind string }
			_ = json.Unmarshal(d.Payload.Period, &p)
			out = append(out, string(d.Payload.Type)+" "+p.Kind)
		}
		slices.Sort(out)
		return out
	}
	if got := kinds(ticked); !slices.Equal(got, []string{"leader.changed all"}) {
		t.Errorf("the hook of all time got %v, want its leader only", got)
	}
	if got := kinds(every); !slices.Equal(got, []string{"leader.changed all", "leader.changed day"}) {
		t.Errorf("the hook of every period got %v, want all time's and the day's leader", got)
	}
}
