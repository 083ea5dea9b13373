package redisstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/redistest"
)

// segRows reads segment seg of period p as "member=score@rank/global".
func (f *fixture) segRows(b *board.Board, p board.Period, seg board.Segment) string {
	f.t.Helper()
	pg, err := f.store.SegmentPage(f.ctx, b, p, seg, 0, 100)
	if err != nil {
		f.t.Fatalf("segment %s of %s: %v", seg, p, err)
	}
	var out []string
	for _, e := range pg.Entries {
		out = append(out, fmt.Sprintf("%s=%g@%d/%d", e.Member, e.Score, e.Rank, e.GlobalRank))
	}
	return strings.Join(out, " ")
}

// TestSegmentFunctionMatchesAPI: FCALL podium_submit_segments gives the
// member its values and writes its score in one step, as the API's
// submission with segments does, and podium_submit keeps a member's
// values: twin boards, one written each way, keep the same segment
// standings in every period.
func TestSegmentFunctionMatchesAPI(t *testing.T) {
	f := realFixture(t)
	r := rand.New(rand.NewPCG(5, 6))
	def := board.Board{Segments: []string{"country", "class"}, RankStyle: board.Dense, Periods: []board.Kind{board.Daily, board.AllTime}}
	def.ID = testBoardID(t) + "-api"
	api := f.board(def)
	def.ID = testBoardID(t) + "-fn"
	fn := f.board(def)
	countries := []string{"", "NO", "SE", "Côte d'Ivoire"}
	for range 100 {
		m, c := fmt.Sprintf("m%d", r.IntN(8)), countries[r.IntN(len(countries))]
		op, v := []board.Op{board.Incr, board.Set, board.Best}[r.IntN(3)], r.IntN(20)
		var vs map[string]string
		if c != "" || r.IntN(4) == 0 {
			vs = map[string]string{"country": c}
		}
		if _, err := f.store.Submit(f.ctx, api.ID, board.Submission{Member: m, Segments: vs, Op: op, Score: float64(v)}, tester); err != nil {
			t.Fatalf("submit %s %v: %v", m, vs, err)
		}
		var err error
		if vs == nil {
			_, err = fcall(f.ctx, f.rdb, fn, m, string(op), strconv.Itoa(v))
		} else {
			_, err = f.rdb.FCall(f.ctx, "podium_submit_segments", []string{defKey(fn.ID)}, m, `{"country":"`+strings.ReplaceAll(c, `'`, `\u0027`)+`"}`, string(op), strconv.Itoa(v)).Text()
		}
		if err != nil {
			t.Fatalf("fcall %s %v: %v", m, vs, err)
		}
	}
	for _, k := range def.Periods {
		for _, c := range countries[1:] {
			seg := board.Segment{Attr: "country", Value: c}
			got, want := f.segRows(fn, fn.Current(k, time.Now()), seg), f.segRows(api, api.Current(k, time.Now()), seg)
			if got != want || want == "" {
				t.Fatalf("%s %s: FCALL gave %q, the API %q", k, seg, got, want)
			}
		}
	}
	for _, bad := range []string{`[]`, `{"planet":"x"}`, `{"country":5}`, `{"country":" NO"}`, `{}`, `{"country":"` + strings.Repeat("x", 33) + `"}`} {
		if _, err := f.rdb.FCall(f.ctx, "podium_submit_segments", []string{defKey(fn.ID)}, "zed", bad, "incr", "1").Text(); err == nil {
			t.Errorf("segments %s: taken", bad)
		}
	}
}

// TestSegmentValuesBound: an attribute takes board.MaxSegmentValues
// distinct values; one more is refused (a batch whole, a single score, a
// move, FCALL) with nothing written, until a value has no members left.
func TestSegmentValuesBound(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Segments: []string{"club"}})
	subs := make([]board.Submission, board.MaxSegmentValues)
	for i := range subs {
		subs[i] = board.Submission{Member: fmt.Sprintf("m%d", i), Score: 1, Segments: map[string]string{"club": fmt.Sprintf("c%d", i)}}
	}
	if _, err := f.store.SubmitBatch(f.ctx, b.ID, subs, board.BatchOptions{By: tester}); err != nil {
		t.Fatal(err)
	}
	_, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "new", Score: 1, Segments: map[string]string{"club": "one-more"}}, tester)
	if !errors.Is(err, board.ErrSegmentFull) {
		t.Fatalf("one more value: %v", err)
	}
	_, err = f.store.SubmitBatch(f.ctx, b.ID, []board.Submission{{Member: "x", Score: 1}, {Member: "new", Score: 1, Segments: map[string]string{"club": "one-more"}}}, board.BatchOptions{By: tester})
	var be *board.BatchError
	if !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, board.ErrSegmentFull) {
		t.Fatalf("a batch with one more value: %v", err)
	}
	if _, _, err := f.store.SetSegment(f.ctx, b.ID, "m1", "club", "one-more", tester); !errors.Is(err, board.ErrSegmentFull) {
		t.Fatalf("a move to one more value: %v", err)
	}
	if _, err := f.rdb.FCall(f.ctx, "podium_submit_segments", []string{defKey(b.ID)}, "new", `{"club":"one-more"}`, "incr", "1").Text(); err == nil || !strings.Contains(err.Error(), "1000 values") {
		t.Fatalf("FCALL with one more value: %v", err)
	}
	if n, _ := f.store.Total(f.ctx, b, b.Current(board.AllTime, f.clock.Now())); n != board.MaxSegmentValues {
		t.Fatalf("refused writes wrote: %d members", n)
	}
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "new", Score: 1, Segments: map[string]string{"club": "c7"}}, tester); err != nil {
		t.Fatalf("a value in use: %v", err)
	}
	// m0 moves to c1: c0 has no members left, so one-more fits.
	if _, _, err := f.store.SetSegment(f.ctx, b.ID, "m0", "club", "c1", tester); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.SetSegment(f.ctx, b.ID, "m2", "club", "one-more", tester); err != nil {
		t.Fatalf("after a value emptied: %v", err)
	}
	vs, err := f.store.SegmentValues(f.ctx, b, "club")
	if err != nil || len(vs) != board.MaxSegmentValues-1 { // c0 and c2 emptied, one-more came
		t.Fatalf("values: %d, %v", len(vs), err)
	}
}

// TestSegmentsFollowWindowsFreezeAndErasure: a rolling window's roll takes
// a member out of its segment with the window; a freeze shows the public
// the segment as it stood; an erasure renames the member in its segment.
func TestSegmentsFollowWindowsFreezeAndErasure(t *testing.T) {
	f := newFixture(t)
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	f.at(start)
	b := f.board(board.Board{Segments: []string{"country"}, Periods: []board.Kind{board.Last24h, board.AllTime}})
	no := board.Segment{Attr: "country", Value: "NO"}
	for i, m := range []string{"ann", "bob", "cy"} {
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: m, Score: float64(10 * (i + 1)), Segments: map[string]string{"country": "NO"}}, tester); err != nil {
			t.Fatal(err)
		}
	}
	f.at(start.Add(20 * time.Hour))
	f.write(b, "ann", board.Incr, 100)
	f.at(start.Add(26 * time.Hour))
	f.roll(b)
	if got := f.segRows(b, b.Current(board.Last24h, f.clock.Now()), no); got != "ann=100@1/1" {
		t.Fatalf("last24h after the roll: %q", got)
	}
	all := b.Current(board.AllTime, f.clock.Now())
	fb, err := f.store.Freeze(f.ctx, b.ID, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.SetSegment(f.ctx, b.ID, "cy", "country", "SE", tester); err != nil {
		t.Fatal(err)
	}
	if got := f.segRows(&fb, all, no); got != "ann=110@1/1 cy=30@2/2 bob=20@3/3" {
		t.Fatalf("frozen: %q", got)
	}
	if got := f.segRows(b, all, no); got != "ann=110@1/1 bob=20@2/3" {
		t.Fatalf("live after the move: %q", got)
	}
	p := board.NewPseudonym()
	if _, err := f.store.EraseMember(f.ctx, b.ID, Erasure{Member: "bob", Pseudonym: p, By: tester}); err != nil {
		t.Fatal(err)
	}
	if got := f.segRows(b, all, no); got != "ann=110@1/1 "+p+"=20@2/3" {
		t.Fatalf("after the erasure: %q", got)
	}
	if got := f.segRows(&fb, all, no); strings.Contains(got, "bob") {
		t.Fatalf("the freeze still names bob: %q", got)
	}
	if vs, _ := f.store.SegmentsOf(f.ctx, b, p); vs["country"] != "NO" {
		t.Fatalf("the pseudonym's values: %v", vs)
	}
	if vs, _ := f.store.SegmentsOf(f.ctx, b, "bob"); len(vs) != 0 {
		t.Fatalf("bob's values stayed: %v", vs)
	}
}

// TestSegmentsOnCluster: every key a segment write, move and read touches
// sits in the board's slot, on a real Redis Cluster, FCALL included.
func TestSegmentsOnCluster(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close) // after the board's own clean-up
	f := newFixture(t)
	cs := NewStore(cluster.Client(t))
	f.store = cs
	if err := cs.LoadFunctions(f.ctx); err != nil {
		t.Fatal(err)
	}
	b := f.board(board.Board{Segments: []string{"country"}, RankStyle: board.Dense, Periods: []board.Kind{board.Daily, board.AllTime}})
	if _, err := cs.Submit(f.ctx, b.ID, board.Submission{Member: "ann", Score: 5, Segments: map[string]string{"country": "NO"}}, tester); err != nil {
		t.Fatal(err)
	}
	if _, err := cluster.Client(t).FCall(f.ctx, "podium_submit_segments", []string{defKey(b.ID)}, "bob", `{"country":"NO"}`, "incr", "7").Text(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cs.SetSegment(f.ctx, b.ID, "ann", "country", "SE", tester); err != nil {
		t.Fatal(err)
	}
	p := b.Current(board.Daily, time.Now())
	if got := f.segRows(b, p, board.Segment{Attr: "country", Value: "SE"}); got != "ann=5@1/2" {
		t.Fatalf("SE: %q", got)
	}
	if _, err := cs.ResetPeriod(f.ctx, b.ID, p, tester); err != nil {
		t.Fatal(err)
	}
	if err := cs.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
}

// TestSegmentsFollowTheDefinition: an attribute taken off a board takes its
// values and standings along (added again, it starts empty), and a board
// turning dense builds its segments' tie groups.
func TestSegmentsFollowTheDefinition(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Segments: []string{"country", "class"}})
	for i, m := range []string{"ann", "bob", "cy"} {
		vs := map[string]string{"country": "NO", "class": "A"}
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: m, Score: float64(10 * (i % 2)), Segments: vs}, tester); err != nil {
			t.Fatal(err)
		}
	}
	all := b.Current(board.AllTime, f.clock.Now())
	upd := *b
	upd.Segments, upd.RankStyle = []string{"country"}, board.Dense
	nb, err := f.store.UpdateBoard(f.ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.segRows(&nb, all, board.Segment{Attr: "country", Value: "NO"}); got != "bob=10@1/1 ann=0@2/2 cy=0@2/2" {
		t.Fatalf("dense: %q", got)
	}
	if n, _ := f.rdb.Exists(f.ctx, segValuesKey(b.ID, "class"), segCountKey(b.ID, "class"), ZSetKey(b.ID, all)+":g:class:A").Result(); n != 0 {
		t.Fatalf("%d keys of class stayed", n)
	}
	upd = nb
	upd.Segments = []string{"country", "class"}
	nb, err = f.store.UpdateBoard(f.ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.segRows(&nb, all, board.Segment{Attr: "class", Value: "A"}); got != "" {
		t.Fatalf("class again: %q", got)
	}
	if vs, _ := f.store.SegmentsOf(f.ctx, &nb, "ann"); len(vs) != 1 || vs["country"] != "NO" {
		t.Fatalf("ann's values: %v", vs)
	}
}

// TestSegmentOfAnArchivedPeriod: a closed period whose keys expired to the
// archive, read by a store with no archive configured: ErrGone, not an
// empty page nor unranked members (archive/segments_test.go reads them
// from the archive).
func TestSegmentOfAnArchivedPeriod(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Segments: []string{"country"}, Periods: []board.Kind{board.Weekly}})
	p, err := b.ParsePeriod("week", "2026-W40", f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.rdb.HSet(f.ctx, ArchiveState(b.ID), p.String(), "0 1"+ExpiredMark).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SegmentPage(f.ctx, b, p, board.Segment{Attr: "country", Value: "NO"}, 0, 10); !errors.Is(err, board.ErrGone) {
		t.Fatalf("an archived week: %v", err)
	}
	if _, err := f.store.SegmentRanks(f.ctx, b, p, board.Segment{Attr: "country", Value: "NO"}, []string{"ann"}); !errors.Is(err, board.ErrGone) {
		t.Fatalf("ranks in an archived week: %v", err)
	}
}
