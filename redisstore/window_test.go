package redisstore

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/board"
)

// utcHourLua is function.lua's utc_hour, cut out to test on its own.
var utcHourLua = func() string {
	src, err := luaFiles.ReadFile("lua/function.lua")
	if err != nil {
		panic(err)
	}
	s := string(src)
	start := strings.Index(s, "local function utc_hour")
	end := strings.Index(s[start:], "\nend\n") + start + 5
	return s[start:end]
}()

// standings reads a whole period as "member=score@rank" in board order.
func (f *fixture) standings(b *board.Board, k board.Kind) string {
	f.t.Helper()
	pg, err := f.store.Page(f.ctx, b, b.Current(k, f.clock.Now()), 0, 100)
	if err != nil {
		f.t.Fatalf("page of %s: %v", k, err)
	}
	var out []string
	for _, e := range pg.Entries {
		out = append(out, fmt.Sprintf("%s=%g@%d", e.Member, e.Score, e.Rank))
	}
	return strings.Join(out, " ")
}

func (f *fixture) write(b *board.Board, member string, op board.Op, v float64) {
	f.t.Helper()
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: member, Op: op, Score: v}, tester); err != nil {
		f.t.Fatalf("submit %s %s %g: %v", member, op, v, err)
	}
}

func (f *fixture) roll(b *board.Board) {
	f.t.Helper()
	fresh, err := f.store.readBoard(f.ctx, b.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	if more, err := f.store.RollWindows(f.ctx, &fresh, 1000); err != nil || more {
		f.t.Fatalf("roll: more %v, %v", more, err)
	}
}

func (f *fixture) at(t time.Time) { f.clock.Set(t) }

// A sum window holds the changes made inside it: day by day, the oldest day
// leaves last7d while all time keeps everything, and a member whose every
// change has left is off the window.
func TestWindowSumRolls(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC) // a Monday
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime, board.Last7d}, DefaultPeriod: board.Last7d})
	f.write(b, "ann", board.Incr, 10) // day 0
	f.write(b, "bob", board.Incr, 4)
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "ann", board.Incr, 1) // day 1
	f.write(b, "bob", board.Decr, 1)
	f.at(day0.Add(3 * 24 * time.Hour))
	f.write(b, "cat", board.Set, 7) // day 3: set moves cat's window score to 7
	if got, want := f.standings(b, board.Last7d), "ann=11@1 cat=7@2 bob=3@3"; got != want {
		t.Fatalf("last7d on day 3: %s, want %s", got, want)
	}
	f.roll(b) // nothing has left yet
	if got, want := f.standings(b, board.Last7d), "ann=11@1 cat=7@2 bob=3@3"; got != want {
		t.Fatalf("last7d after an idle roll: %s, want %s", got, want)
	}

	f.at(day0.Add(7*24*time.Hour + time.Hour)) // day 7: day 0 has left
	f.roll(b)
	if got, want := f.standings(b, board.Last7d), "cat=7@1 ann=1@2 bob=-1@3"; got != want {
		t.Fatalf("last7d on day 7: %s, want %s", got, want)
	}
	if got, want := f.standings(b, board.AllTime), "ann=11@1 cat=7@2 bob=3@3"; got != want {
		t.Fatalf("all time on day 7: %s, want %s", got, want)
	}
	f.at(day0.Add(8*24*time.Hour + time.Hour)) // day 8: day 1 has left, ann and bob with it
	f.roll(b)
	if got, want := f.standings(b, board.Last7d), "cat=7@1"; got != want {
		t.Fatalf("last7d on day 8: %s, want %s", got, want)
	}
	f.at(day0.Add(10*24*time.Hour + time.Hour))
	f.roll(b)
	if got := f.standings(b, board.Last7d); got != "" {
		t.Fatalf("last7d on day 10: %q, want empty", got)
	}
	// The buckets that left are gone from Redis.
	z := ZSetKey(b.ID, board.Period{Kind: board.Last7d})
	if n, err := f.rdb.SCard(f.ctx, bucketsKey(z)).Result(); err != nil || n != 0 {
		t.Fatalf("buckets left: %d, %v", n, err)
	}
	if n, err := f.rdb.Exists(f.ctx, bucketKey(z, "2026-11-02"), bucketKey(z, "2026-11-05")).Result(); err != nil || n != 0 {
		t.Fatalf("bucket keys left: %d, %v", n, err)
	}
}

// A best window keeps the best value offered inside it: when the day of a
// member's best leaves, the best of the days left takes its place.
func TestWindowBestRecomputes(t *testing.T) {
	for _, order := range []board.Order{board.HigherIsBetter, board.LowerIsBetter} {
		t.Run(string(order), func(t *testing.T) {
			f := newFixture(t)
			day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
			f.at(day0)
			b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}, Order: order, Window: board.WindowBest})
			f.write(b, "ann", board.Best, 50)
			f.write(b, "bob", board.Best, 30)
			f.at(day0.Add(2 * 24 * time.Hour))
			f.write(b, "ann", board.Best, 40)
			f.write(b, "ann", board.Set, 45) // a set offers its value like best
			f.at(day0.Add(4 * 24 * time.Hour))
			f.write(b, "ann", board.Best, 20)
			want := map[board.Order]string{board.HigherIsBetter: "ann=50@1 bob=30@2", board.LowerIsBetter: "ann=20@1 bob=30@2"}[order]
			if got := f.standings(b, board.Last7d); got != want {
				t.Fatalf("last7d on day 4: %s, want %s", got, want)
			}
			f.at(day0.Add(7*24*time.Hour + time.Minute)) // day 0 leaves: bob is gone, ann's 50 too
			f.roll(b)
			want = map[board.Order]string{board.HigherIsBetter: "ann=45@1", board.LowerIsBetter: "ann=20@1"}[order]
			if got := f.standings(b, board.Last7d); got != want {
				t.Fatalf("last7d on day 7: %s, want %s", got, want)
			}
			f.at(day0.Add(9*24*time.Hour + time.Minute)) // day 2 leaves
			f.roll(b)
			if got, want := f.standings(b, board.Last7d), "ann=20@1"; got != want {
				t.Fatalf("last7d on day 9: %s, want %s", got, want)
			}
		})
	}
}

// last24h is made of UTC hours: a write leaves it 24 hours after the start of
// its hour, whatever the board's zone.
func TestWindowHourly(t *testing.T) {
	f := newFixture(t)
	h0 := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	f.at(h0)
	b := f.board(board.Board{Periods: []board.Kind{board.Last24h, board.Daily}, TimeZone: "Asia/Kolkata"})
	f.write(b, "ann", board.Incr, 5)
	f.at(h0.Add(3 * time.Hour))
	f.write(b, "ann", board.Incr, 2)
	f.write(b, "bob", board.Incr, 1)
	f.at(time.Date(2026, 11, 23, 8, 59, 0, 0, time.UTC)) // 09:00 is still in: the current hour and the 23 before
	f.roll(b)
	if got, want := f.standings(b, board.Last24h), "ann=7@1 bob=1@2"; got != want {
		t.Fatalf("last24h at 08:59 next day: %s, want %s", got, want)
	}
	f.at(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	f.roll(b)
	if got, want := f.standings(b, board.Last24h), "ann=2@1 bob=1@2"; got != want {
		t.Fatalf("last24h at 09:00 next day: %s, want %s", got, want)
	}
	if got, want := b.BucketAt(board.Last24h, h0), "2026-11-22T09"; got != want {
		t.Fatalf("bucket id %s, want %s", got, want)
	}
	if got, want := b.BucketAt(board.Last7d, time.Date(2026, 11, 22, 20, 0, 0, 0, time.UTC)), "2026-11-23"; got != want {
		t.Fatalf("day bucket in Kolkata: %s, want %s", got, want)
	}
}

// Ties keep the board's tie-break and rank style through an expiry: the
// dense index and group counts follow every score the roll changes.
func TestWindowTiesAndDenseRanks(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.Last7d}, RankStyle: board.Dense, Fields: []board.Field{{Name: "clears", Desc: true}}})
	f.write(b, "ann", board.Incr, 5)
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "bob", board.Incr, 3)
	f.write(b, "cat", board.Incr, 3)
	f.write(b, "ann", board.Incr, 3)
	f.write(b, "dan", board.Incr, 1)
	if got, want := f.standings(b, board.Last7d), "ann=8@1 bob=3@2 cat=3@2 dan=1@3"; got != want {
		t.Fatalf("before: %s, want %s", got, want)
	}
	f.at(day0.Add(7*24*time.Hour + time.Hour))
	f.roll(b)
	// ann falls to 3 and ties with bob and cat; she reached 3 last (her last
	// write), so with the earliest tie-break she ranks after them.
	if got, want := f.standings(b, board.Last7d), "bob=3@1 cat=3@1 ann=3@1 dan=1@2"; got != want {
		t.Fatalf("after: %s, want %s", got, want)
	}
	z := ZSetKey(b.ID, board.Period{Kind: board.Last7d})
	groups, err := f.rdb.ZCard(f.ctx, distinctKey(z)).Result()
	if err != nil || groups != 2 {
		t.Fatalf("dense index holds %d groups (%v), want 2", groups, err)
	}
}

// A bucket bigger than one roll step leaves in several atomic steps, and
// two stores rolling at once take nothing out twice.
func TestWindowRollsInChunks(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.Last7d}})
	n := rollChunk*2 + 17
	subs := make([]board.Submission, n)
	for i := range subs {
		subs[i] = board.Submission{Member: "m" + strconv.Itoa(i), Score: float64(i + 1)}
	}
	for _, part := range [][]board.Submission{subs[:n/2], subs[n/2:]} {
		if _, err := f.store.SubmitBatch(f.ctx, b.ID, part, board.BatchOptions{By: tester, NoRanks: true}); err != nil {
			t.Fatal(err)
		}
	}
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "m0", board.Incr, 100)
	f.at(day0.Add(7*24*time.Hour + time.Hour))
	other := NewStore(f.rdb, WithClock(f.clock.Now))
	fresh, _ := f.store.readBoard(f.ctx, b.ID)
	steps := 0
	for more := true; more; steps++ {
		var err error
		if more, err = f.store.RollWindows(f.ctx, &fresh, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := other.RollWindows(f.ctx, &fresh, 1); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := f.standings(b, board.Last7d), "m0=100@1"; got != want {
		t.Fatalf("after rolling in %d steps: %s, want %s", steps, got, want)
	}
}

// A writer whose clock is behind the window's floor is left out of the
// window (its write is older than what the window holds), not added to a
// bucket already taken out.
func TestWindowLateWriteLeftOut(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0.Add(8 * 24 * time.Hour))
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}})
	f.write(b, "ann", board.Incr, 1)
	f.roll(b) // sets the floor to day 2
	f.at(day0)
	res, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "bob", Score: 5}, tester)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Period.Kind != board.AllTime {
		t.Fatalf("late write changed %+v, want all time only", res.Changes)
	}
	f.at(day0.Add(8 * 24 * time.Hour))
	if got, want := f.standings(b, board.Last7d), "ann=1@1"; got != want {
		t.Fatalf("last7d: %s, want %s", got, want)
	}
}

// Removing a member takes it out of the window's buckets too: scoring again,
// it starts from nothing, and an old bucket leaving takes nothing from it.
func TestWindowRemoveAndReset(t *testing.T) {
	f := newFixture(t)
	day0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f.at(day0)
	b := f.board(board.Board{Periods: []board.Kind{board.AllTime, board.Last7d}})
	f.write(b, "ann", board.Incr, 10)
	f.write(b, "bob", board.Incr, 2)
	if _, err := f.store.RemoveMember(f.ctx, b.ID, "ann", nil, tester); err != nil {
		t.Fatal(err)
	}
	f.at(day0.Add(24 * time.Hour))
	f.write(b, "ann", board.Incr, 3)
	f.at(day0.Add(7*24*time.Hour + time.Hour))
	f.roll(b)
	if got, want := f.standings(b, board.Last7d), "ann=3@1"; got != want {
		t.Fatalf("last7d: %s, want %s", got, want)
	}
	if _, err := f.store.ResetPeriod(f.ctx, b.ID, board.Period{Kind: board.Last7d}, tester); err != nil {
		t.Fatal(err)
	}
	z := ZSetKey(b.ID, board.Period{Kind: board.Last7d})
	if n, err := f.rdb.Exists(f.ctx, z, bucketsKey(z), bucketKey(z, "2026-11-03")).Result(); err != nil || n != 0 {
		t.Fatalf("after reset %d window keys are left (%v)", n, err)
	}
	if got, want := f.standings(b, board.AllTime), "ann=3@1 bob=2@2"; got != want {
		t.Fatalf("all time: %s, want %s", got, want)
	}
}
