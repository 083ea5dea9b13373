package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// TestLeagueClosedOnce: a league period's close, once the archiver has
// applied it, is announced once to each enabled hook that wants it and was
// registered before the close, whichever of two racing runners sees it
// first: the tiers, every promotion and relegation with names, and the
// counts. The next week's close is announced in its turn.
func TestLeagueClosedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, wednesday)
	f.b.League = &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 4, Promote: 1, Relegate: 1}
	b, err := f.store.UpdateBoard(f.ctx, f.b)
	if err != nil {
		t.Fatal(err)
	}
	f.b = b
	// g, h and i start in Silver (as an earlier close would have put them).
	if err := f.rdb.HSet(f.ctx, "lb:{"+b.ID+"}:league:tier", "g", 1, "h", 1, "i", 1).Err(); err != nil {
		t.Fatal(err)
	}
	recv, late, closed := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{LeagueClosed}, AllPeriods: true, Top: 3})
	f.hook(closed, Input{Events: []Event{PeriodClosed}, Periods: []board.Kind{board.Weekly}, Top: 3})
	for _, s := range []struct {
		m string
		v float64
	}{{"a", 40}, {"b", 30}, {"c", 20}, {"d", 10}, {"g", 50}, {"h", 20}, {"i", 5}} {
		f.submit(s.m, s.v)
	}
	r1, r2 := f.runner(recv, Options{}), f.runner(recv, Options{Consumer: "second"})
	w48 := f.b.Current(board.Weekly, f.clock.Now())
	f.pass(r1)
	f.clock.Set(w48.End.Add(time.Minute))
	f.pass(r1) // the week ended, its close is not applied yet
	if n := len(recv.deliveries()); n != 0 {
		t.Fatalf("announced before the close (%d deliveries)", n)
	}
	if ok, err := f.store.CloseLeague(f.ctx, &f.b, w48); err != nil || !ok {
		t.Fatalf("close: %v %v", ok, err)
	}
	// A hook made after the close is not told of it.
	f.clock.Add(time.Second)
	f.hook(late, Input{Events: []Event{LeagueClosed}, Periods: []board.Kind{board.Weekly}, Top: 3})
	race(t, f.ctx, r1, r2)

	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Type != LeagueClosed || !got[0].Verified {
		t.Fatalf("deliveries %+v", got)
	}
	var per struct{ Key string }
	_ = json.Unmarshal(got[0].Payload.Period, &per)
	if per.Key != w48.Key {
		t.Fatalf("period %s", got[0].Payload.Period)
	}
	var body struct {
		League json.RawMessage `json:"league"`
	}
	if err := json.Unmarshal(got[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	// Bronze 1: a b c d, a up (d is last, but Bronze is the lowest tier);
	// Silver 1: g h i, g up, i down.
	want := `{"tiers":["Bronze","Silver","Gold"],` +
		`"promoted":[{"member":"a","name":"A","from":"Bronze","to":"Silver","cohort":1,"rank":1},{"member":"g","name":"G","from":"Silver","to":"Gold","cohort":1,"rank":1}],` +
		`"relegated":[{"member":"i","name":"I","from":"Silver","to":"Bronze","cohort":1,"rank":3}],` +
		`"moves":{"up":2,"down":1,"stay":4},"truncated":false}`
	if string(body.League) != want {
		t.Fatalf("league\n got %s\nwant %s", body.League, want)
	}
	if n := len(late.deliveries()); n != 0 {
		t.Fatalf("a hook made after the close got %d deliveries", n)
	}
	for _, d := range closed.deliveries() {
		if d.Payload.Type != PeriodClosed {
			t.Fatalf("a hook for period.closed got %s", d.Payload.Type)
		}
	}

	// The next week: only a plays, alone in Silver, and goes up; its close
	// is news to both hooks.
	f.submit("a", 1)
	w49 := w48.Next()
	f.clock.Set(w49.End.Add(time.Minute))
	if ok, err := f.store.CloseLeague(f.ctx, &f.b, w49); err != nil || !ok {
		t.Fatalf("close: %v %v", ok, err)
	}
	race(t, f.ctx, r1, r2)
	if got := recv.deliveries(); len(got) != 2 || !strings.Contains(string(got[1].Body), `"key":"`+w49.Key+`"`) ||
		!strings.Contains(string(got[1].Body), `"from":"Silver","to":"Gold","cohort":1,"rank":1}],"relegated":[],"moves":{"up":1,"down":0,"stay":0}`) {
		t.Fatalf("the next week: %d deliveries, last %s", len(got), got[len(got)-1].Body)
	}
	if got := late.deliveries(); len(got) != 1 || !strings.Contains(string(got[0].Body), `"key":"`+w49.Key+`"`) {
		t.Fatalf("the late hook, the next week: %+v", got)
	}
}

// race runs passes of every runner at once, a few times over.
func race(t *testing.T, ctx context.Context, rs ...*Runner) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 3*len(rs))
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if err := r.Pass(ctx); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestLeagueSummaryCaps: at most MaxLeagueMoves promotions and as many
// relegations are listed; the counts are of every move.
func TestLeagueSummaryCaps(t *testing.T) {
	l := &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver"}, Promote: 1, Relegate: 1}
	var rs []board.LeagueResult
	for i := range MaxLeagueMoves + 5 {
		rs = append(rs, board.LeagueResult{Member: fmt.Sprint("u", i), Tier: 0, Cohort: i + 1, Rank: 1, Move: board.Up, Next: 1},
			board.LeagueResult{Member: fmt.Sprint("s", i), Tier: 1, Cohort: i + 1, Rank: 2, Move: board.Stay, Next: 1})
	}
	rs = append(rs, board.LeagueResult{Member: "d", Tier: 1, Cohort: 1, Rank: 3, Move: board.Down, Next: 0})
	sum := leagueOf(l, rs)
	if len(sum.Promoted) != MaxLeagueMoves || len(sum.Relegated) != 1 || !sum.Truncated ||
		sum.Moves != (MoveCounts{Up: MaxLeagueMoves + 5, Down: 1, Stay: MaxLeagueMoves + 5}) {
		t.Fatalf("%d promoted, %d relegated, truncated %v, %+v", len(sum.Promoted), len(sum.Relegated), sum.Truncated, sum.Moves)
	}
	if m := sum.Relegated[0]; m.From != "Silver" || m.To != "Bronze" || m.Rank != 3 {
		t.Fatalf("relegated %+v", m)
	}
}

// TestLeagueClosedNeedsALeague: league.closed is refused on a board
// without a league, and on a hook that does not follow the league's period.
func TestLeagueClosedNeedsALeague(t *testing.T) {
	b := &board.Board{ID: "b", Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}}
	in := Input{URL: "https://hooks.example.com/podium", Events: []Event{LeagueClosed}, AllPeriods: true, Top: 10}
	var bad *InvalidError
	if _, err := in.Check(b, false); !errors.As(err, &bad) || !strings.Contains(bad.Fields["events"], "needs a league") {
		t.Fatalf("no league: %v", err)
	}
	b.League = &board.League{Kind: board.Weekly, Tiers: []string{"A", "B"}, Promote: 1, Relegate: 1}
	if _, err := in.Check(b, false); err != nil {
		t.Fatalf("every period: %v", err)
	}
	in.AllPeriods, in.Periods = false, []board.Kind{board.Daily}
	if _, err := in.Check(b, false); !errors.As(err, &bad) || !strings.Contains(bad.Fields["periods"], "the league's period (week)") {
		t.Fatalf("days only: %v", err)
	}
	in.Periods = []board.Kind{board.Weekly}
	if _, err := in.Check(b, false); err != nil {
		t.Fatalf("weeks: %v", err)
	}
}

var _ LeagueStore = (*redisstore.Store)(nil)

// TestLeagueClosedAfterAnErasure: an erasure rewrites a queued
// league.closed event in Lua, whose JSON writes an empty list as {}; the
// delivery still renders, the empty list as [].
func TestLeagueClosedAfterAnErasure(t *testing.T) {
	b := &board.Board{ID: "x", Title: "X"}
	data := `{"league":{"promoted":[{"name":"","from":"Bronze","to":"Silver","member":"erased-1","cohort":1,"rank":1}],"truncated":false,"relegated":{},"tiers":["Bronze","Silver"],"moves":{"stay":1,"down":0,"up":1}}}`
	out, err := render(b, map[string]any{"event": "x-1", "type": string(LeagueClosed), "at": "1", "period": "{}", "data": data})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"promoted":[{"member":"erased-1","name":"","from":"Bronze","to":"Silver","cohort":1,"rank":1}],"relegated":[],"moves":{"up":1,"down":0,"stay":1}`) {
		t.Fatalf("body %s", out)
	}
}
