package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// cacheQuery is one of the reads the model test makes through the caches.
type cacheQuery struct {
	name string
	read func(ctx context.Context, r CachedReader, b *board.Board) string
}

// render is an answer as text: what a reader would see.
func renderPage(pg board.Page, pos int, err error) string {
	if errors.Is(err, board.ErrNotFound) {
		return "not found"
	}
	if err != nil {
		return "error " + err.Error()
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "total %d at %d pos %d:", pg.Total, pg.Offset, pos)
	for _, e := range pg.Entries {
		fmt.Fprintf(&sb, " %d.%s(%s)=%g", e.Rank, e.Member, e.Name, e.Score)
	}
	return sb.String()
}

func renderStandings(sts []board.Standing, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	var sb strings.Builder
	for _, st := range sts {
		fmt.Fprintf(&sb, "%s %v %d/%d %g %s; ", st.Period, st.Ranked, st.Rank, st.Total, st.Score, st.Name)
	}
	return sb.String()
}

var cacheQueries = []cacheQuery{
	{"top 5 of all time", func(ctx context.Context, r CachedReader, b *board.Board) string {
		pg, err := r.Page(ctx, b, b.Current(board.AllTime, r.Now()), 0, 5)
		return renderPage(pg, 0, err)
	}},
	{"page 2 of today", func(ctx context.Context, r CachedReader, b *board.Board) string {
		pg, err := r.Page(ctx, b, b.Current(board.Daily, r.Now()), 3, 3)
		return renderPage(pg, 0, err)
	}},
	{"around m3", func(ctx context.Context, r CachedReader, b *board.Board) string {
		pg, pos, err := r.Around(ctx, b, b.Current(board.AllTime, r.Now()), "m3", 2)
		return renderPage(pg, pos, err)
	}},
	{"m5's standing", func(ctx context.Context, r CachedReader, b *board.Board) string {
		return renderStandings(r.Member(ctx, b, "m5"))
	}},
}

// truth is what an uncached read answered after a write, and until when
// that state may have lasted: the end of the next write (0: still).
type truth struct {
	answer string
	until  time.Time
}

// TestCacheModel interleaves every kind of write (the store of either
// replica, an outside writer's FCALL, plain ZINCRBY, a removal, a rename, a
// change of rank style, a freeze and its reveal) with reads through two
// replicas' caches, and checks each cached answer against what uncached
// reads said after each write: it must be one the board held at most one
// tick before the read began, and every cache must come to the latest.
// Twice the replicas' subscriptions are killed before a write: an answer
// is still never staler than the bound. And once writes stop, reads cost
// Redis nothing.
func TestCacheModel(t *testing.T) {
	fa := newLiveFixture(t, Options{PollInterval: time.Minute})
	fb := newLiveFixtureOn(t, srv.Client(t), Options{PollInterval: time.Minute})
	ctx := context.Background()
	if err := fa.store.LoadFunctions(ctx); err != nil {
		t.Fatal(err)
	}
	caches := []*Cache{fa.hub.NewCache(fa.store), fb.hub.NewCache(fb.store)}
	stores := []*redisstore.Store{fa.store, fb.store}
	for i, s := range stores {
		s.OnWrite(caches[i].Wrote)
	}
	tick := fa.hub.opts.Tick
	id := "cached"
	if _, err := fa.store.CreateBoard(ctx, board.Board{ID: id, Title: "Cached", TieBreak: board.ByMember,
		Periods: []board.Kind{board.Daily, board.AllTime}}); err != nil {
		t.Fatal(err)
	}
	by := board.Author{Actor: "admin:model"}
	rng := rand.New(rand.NewPCG(27, 1))
	member := func() string { return fmt.Sprintf("m%d", rng.IntN(8)) }
	def := func() *board.Board {
		b, err := fa.store.ReadBoard(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return &b
	}

	history := make([][]truth, len(cacheQueries))
	record := func(end time.Time) {
		b := def()
		for i, q := range cacheQueries {
			if n := len(history[i]); n > 0 {
				history[i][n-1].until = end
			}
			history[i] = append(history[i], truth{answer: q.read(ctx, fa.store, b)})
		}
	}
	// check: an answer read from a cache at start is one the board held
	// at most a tick before.
	check := func(qi int, answer string, start time.Time) {
		t.Helper()
		h := history[qi]
		for j := len(h) - 1; j >= 0; j-- {
			if h[j].answer != answer {
				continue
			}
			if !h[j].until.IsZero() && h[j].until.Before(start.Add(-tick)) {
				t.Fatalf("%s: answer %q was replaced %v before the read (bound %v); now %q",
					cacheQueries[qi].name, answer, start.Sub(h[j].until), tick, h[len(h)-1].answer)
			}
			return
		}
		t.Fatalf("%s: answer %q was never the board's; history %v", cacheQueries[qi].name, answer, h)
	}
	readWith := func(b *board.Board) (same bool) {
		t.Helper()
		same = true
		for qi, q := range cacheQueries {
			for _, c := range caches {
				start := time.Now()
				got := q.read(ctx, c, b)
				check(qi, got, start)
				same = same && got == history[qi][len(history[qi])-1].answer
			}
		}
		return same
	}
	readAll := func() bool { return readWith(def()) }

	frozen := false
	for step := range 60 {
		if step == 20 || step == 40 {
			if n, err := fa.rdb.ClientKillByFilter(ctx, "TYPE", "pubsub").Result(); err != nil || n < 2 {
				t.Fatalf("CLIENT KILL TYPE pubsub: %d, %v", n, err)
			}
		}
		si := rng.IntN(2)
		s, own := stores[si], true // own: written through a replica's store
		var err error
		switch a := rng.IntN(10); {
		case a < 4:
			_, err = s.Submit(ctx, id, board.Submission{Member: member(), Score: float64(rng.IntN(5)), Op: board.Incr}, by)
		case a == 4:
			own = false
			err = fa.rdb.FCall(ctx, "podium_submit", []string{redisstore.DefKey(id)}, member(), "incr", rng.IntN(5)).Err()
		case a == 5:
			own = false
			err = fa.rdb.ZIncrBy(ctx, redisstore.ZSetKey(id, board.Period{Kind: board.AllTime}), float64(rng.IntN(5)), member()).Err()
		case a == 6:
			_, err = s.RemoveMember(ctx, id, member(), nil, by)
			if errors.Is(err, board.ErrNotFound) {
				err = nil
			}
		case a == 7:
			_, err = s.SetName(ctx, id, member(), fmt.Sprintf("Name %d", step), by)
		case a == 8:
			b := def()
			b.RankStyle = []board.RankStyle{board.Competition, board.Ordinal}[rng.IntN(2)] // dense needs a time tie-break
			_, err = s.UpdateBoard(ctx, *b)
		default:
			if frozen {
				_, err = s.Unfreeze(ctx, id)
			} else {
				_, err = s.Freeze(ctx, id, s.Now())
			}
			frozen = !frozen
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		record(time.Now())
		if own { // whoever wrote through a replica reads their write there at once
			b := def()
			for qi, q := range cacheQueries {
				if got, want := q.read(ctx, caches[si], b), history[qi][len(history[qi])-1].answer; got != want {
					t.Fatalf("step %d: %s right after a write through this replica: %q, want %q", step, q.name, got, want)
				}
			}
		}
		// Every cache comes to the latest answers, and each answer on the
		// way is within the bound.
		eventually(t, fmt.Sprintf("step %d's answers through both caches", step), readAll)
		for _, c := range caches {
			checkHeld(t, c)
		}
	}

	// Quiet now: while notifications are trusted, reads are hits and
	// cost Redis nothing. (A round in which a hub stopped vouching, a
	// loaded machine late with a pong, proves nothing and is made again.)
	b := def()
	readWith(b)
	quiet := 0
	eventually(t, "20 rounds in a row of reads of a quiet board that are all hits and reach Redis not once", func() bool {
		if !fa.hub.Fresh() || !fb.hub.Fresh() {
			return false
		}
		readWith(b) // what a new subscription made stale is read again
		epochs := func() [2]uint64 { return [2]uint64{caches[0].epochNow(), caches[1].epochNow()} }
		e0, before, hits := epochs(), commandCalls(t, fa), caches[0].Stats().Hits+caches[1].Stats().Hits
		if !readWith(b) {
			t.Fatal("an answer changed with nothing written")
		}
		after, got := commandCalls(t, fa), caches[0].Stats().Hits+caches[1].Stats().Hits-hits
		if !fa.hub.Fresh() || !fb.hub.Fresh() || epochs() != e0 {
			return false
		}
		if after != before || got != uint64(2*len(cacheQueries)) {
			// Answers served young after the last writes (a busy board's)
			// are read again once older than a tick: start again.
			quiet = 0
			return false
		}
		quiet++
		return quiet == 20
	})
}

func (c *Cache) epochNow() uint64 { c.mu.Lock(); defer c.mu.Unlock(); return c.epoch }

// commandCalls is how many commands Redis has run but those of the
// hubs' upkeep (INFO itself, pings, subscriptions, the CONFIG check of
// keyspace notifications after a subscription, connection set-up).
func commandCalls(t *testing.T, f *liveFixture) int {
	t.Helper()
	info, err := f.rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(info, "\r\n") {
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !strings.HasPrefix(line, "cmdstat_") || slices.Contains([]string{"info", "ping", "psubscribe", "hello", "select"}, name) ||
			strings.HasPrefix(name, "config|") || strings.HasPrefix(name, "client|") {
			continue
		}
		var calls int
		if _, err := fmt.Sscanf(line[strings.Index(line, ":")+1:], "calls=%d", &calls); err == nil {
			n += calls
		}
	}
	return n
}

// TestCacheServesOneReadToManyCallers: callers asking for the same answer
// at once share one read of Redis.
func TestCacheServesOneReadToManyCallers(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("crowd", "ann", 5, "bob", 3)
	c := f.hub.NewCache(f.store)
	p := b.Current(board.AllTime, f.store.Now())
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			pg, err := c.Page(context.Background(), b, p, 0, 10)
			if err != nil || len(pg.Entries) != 2 {
				t.Errorf("page: %v %v", pg, err)
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Misses > 2 || st.Hits+st.Misses != 50 { // a second read only if the first is a tick old
		t.Errorf("stats %+v: want one read for 50 callers", st)
	}
}

// TestCachedPagesAreCopies: a caller that changes the rows it was given
// (a privacy mode masks names) changes nothing for the next.
func TestCachedPagesAreCopies(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("copies", "ann", 5, "bob", 3)
	c := f.hub.NewCache(f.store)
	p := b.Current(board.AllTime, f.store.Now())
	pg, err := c.Page(context.Background(), b, p, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	pg.Entries[0].Name = "masked"
	again, err := c.Page(context.Background(), b, p, 0, 10)
	if err != nil || again.Entries[0].Name != "ann" {
		t.Fatalf("second read: %+v, %v", again.Entries, err)
	}
}

// TestCacheReadViews: the home page's tops come from the cache, the ones it
// has not read in one round trip, and a query it does not keep (a team
// page) as before.
func TestCacheReadViews(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	c := f.hub.NewCache(f.store)
	c.fresh = func() bool { return false }
	c.tick = time.Hour
	ctx := context.Background()
	var qs []redisstore.ViewQuery
	for i := range 3 {
		b := f.board(fmt.Sprintf("home-%d", i), "ann", 5+i, "bob", 3)
		qs = append(qs, redisstore.ViewQuery{Board: b, Period: b.Current(board.AllTime, f.store.Now()), Limit: 3})
	}
	first := c.ReadViews(ctx, qs)
	before := commandCalls(t, f)
	again := c.ReadViews(ctx, qs)
	if after := commandCalls(t, f); after != before {
		t.Errorf("the second read reached Redis: %d commands", after-before)
	}
	for i := range qs {
		if first[i].Err != nil || renderPage(first[i].Page, 0, nil) != renderPage(again[i].Page, 0, nil) || first[i].Page.Entries[0].Score != float64(5+i) {
			t.Errorf("board %d: %+v then %+v", i, first[i], again[i])
		}
	}
	if st := c.Stats(); st.Hits != 3 || st.Misses != 3 {
		t.Errorf("stats %+v, want 3 misses then 3 hits", st)
	}
}

// TestCacheRace: the race pages' charts, fetched again by every open page
// at each frame, cost one read for many callers, and a write's point
// reaches them once its notification arrives.
func TestCacheRace(t *testing.T) {
	f := newLiveFixture(t, Options{PollInterval: time.Minute})
	b := f.board("racing")
	ctx := context.Background()
	submit := func(member string, v float64) {
		t.Helper()
		if _, err := f.store.Submit(ctx, b.ID, board.Submission{Member: member, Op: board.Set, Score: v}, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	submit("ann", 5)
	c := f.hub.NewCache(f.store)
	p := b.Current(board.AllTime, f.store.Now())
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			pts, err := c.Race(ctx, b, p)
			if err != nil || len(pts) != 1 {
				t.Errorf("race: %v %v", pts, err)
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Misses > 2 || st.Hits+st.Misses != 50 {
		t.Errorf("stats %+v: want one read of the race for 50 callers", st)
	}
	submit("bob", 7)
	for deadline := time.Now().Add(10 * time.Second); ; {
		pts, err := c.Race(ctx, b, p)
		if err == nil && len(pts) == 2 && pts[1].Member == "bob" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("race after a write: %v %v", pts, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
