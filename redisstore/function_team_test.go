package redisstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/redistest"
)

// TestFunctionSubmitTeamMatchesAPI: FCALL podium_submit_team moves the
// member to its team and writes its score in one step, as the API's
// submission with a team does: twin boards, one written each way, keep the
// same team standings and rosters in every period.
func TestFunctionSubmitTeamMatchesAPI(t *testing.T) {
	f := realFixture(t)
	r := rand.New(rand.NewPCG(3, 4))
	def := board.Board{Teams: board.TeamsSum, Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime}}
	def.ID = testBoardID(t) + "-api"
	api := f.board(def)
	def.ID = testBoardID(t) + "-fn"
	fn := f.board(def)
	teams := []string{"", "north", "south", "east"}
	for range 120 {
		m, team := fmt.Sprintf("m%d", r.IntN(8)), teams[r.IntN(len(teams))]
		op, v := []board.Op{board.Incr, board.Set, board.Best}[r.IntN(3)], r.IntN(50)
		if _, err := f.store.Submit(f.ctx, api.ID, board.Submission{Member: m, Team: team, Op: op, Score: float64(v)}, tester); err != nil {
			t.Fatalf("submit %s %s: %v", m, team, err)
		}
		var err error
		if team == "" {
			_, err = fcall(f.ctx, f.rdb, fn, m, string(op), strconv.Itoa(v))
		} else {
			_, err = f.rdb.FCall(f.ctx, "podium_submit_team", []string{defKey(fn.ID)}, m, team, string(op), strconv.Itoa(v)).Text()
		}
		if err != nil {
			t.Fatalf("fcall %s %s: %v", m, team, err)
		}
	}
	standing := func(b *board.Board, k board.Kind) string {
		t.Helper()
		p := b.Current(k, time.Now())
		pg, err := f.store.TeamPage(f.ctx, b, p, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range pg.Entries {
			ms, err := f.store.TeamMembers(f.ctx, b, p, e.Member)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, st := range ms {
				names = append(names, st.Member)
			}
			slices.Sort(names)
			out = append(out, fmt.Sprintf("%s=%g@%d%v", e.Member, e.Score, e.Rank, names))
		}
		return strings.Join(out, " ")
	}
	for _, k := range def.Periods {
		a, b := standing(api, k), standing(fn, k)
		if a != b || a == "" {
			t.Fatalf("%s: api %q, fcall %q", k, a, b)
		}
	}
}

// TestFunctionSubmitTeamRefuses: bad teams, and teams on a board that keeps
// none, are errors naming the problem, and nothing is written.
func TestFunctionSubmitTeamRefuses(t *testing.T) {
	f := realFixture(t)
	plain := f.board(board.Board{ID: testBoardID(t) + "-plain"})
	teamed := f.board(board.Board{ID: testBoardID(t) + "-teams", Teams: board.TeamsSum})
	call := func(b *board.Board, args ...any) error {
		return f.rdb.FCall(f.ctx, "podium_submit_team", []string{defKey(b.ID)}, args...).Err()
	}
	if err := call(teamed, "ann", "north", "incr", "5", "", "k1"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		b    *board.Board
		args []any
		want string
	}{
		{plain, []any{"ann", "north", "incr", "1"}, "keeps no teams"},
		{teamed, []any{"ann", "", "incr", "1"}, "team is required"},
		{teamed, []any{"ann"}, "team is required"},
		{teamed, []any{"ann", strings.Repeat("t", 65), "incr", "1"}, "longer than 64"},
		{teamed, []any{"ann", " north", "incr", "1"}, "surrounding spaces"},
		{teamed, []any{"ann", "no\u200brth", "incr", "1"}, "invisible"},
		{teamed, []any{"ann", "south", "incr", "5", "", "k1"}, "already used"}, // the same key with another team
	} {
		before := dumpBoard(t, f, tc.b.ID)
		err := call(tc.b, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
		if after := dumpBoard(t, f, tc.b.ID); !maps2Equal(before, after) {
			t.Fatalf("%v wrote", tc.args)
		}
	}
	// A true retry is a replay, and the member is still in its team.
	if out, err := f.rdb.FCall(f.ctx, "podium_submit_team", []string{defKey(teamed.ID)}, "ann", "north", "incr", "5", "", "k1").Text(); err != nil || !strings.Contains(out, `"replayed":true`) {
		t.Fatalf("retry: %s %v", out, err)
	}
	if got := f.teams(teamed, board.AllTime); got != "north=5@1" {
		t.Fatalf("teams after the refusals: %s", got)
	}
}

// TestEnsureFunctions: a Redis (or Cluster primary) that lost the library,
// or never had it, gets it back; one that has it is left alone.
func TestEnsureFunctions(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{})
	if n, err := f.store.EnsureFunctions(f.ctx); err != nil || n != 0 {
		t.Fatalf("with the library there: loaded %d, %v", n, err)
	}
	if err := f.rdb.FunctionDelete(f.ctx, FunctionLibrary).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "1"); err == nil {
		t.Fatal("FCALL worked without the library")
	}
	if n, err := f.store.EnsureFunctions(f.ctx); err != nil || n != 1 {
		t.Fatalf("without the library: loaded %d, %v", n, err)
	}
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "1"); err != nil {
		t.Fatalf("FCALL after: %v", err)
	}

	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	cc := cluster.Client(t)
	cs := NewStore(cc)
	if n, err := cs.EnsureFunctions(f.ctx); err != nil || n != 3 {
		t.Fatalf("a new cluster: loaded %d, %v", n, err)
	}
	primaries, err := cluster.Primaries(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.Node(primaries[1]).Client(t).FunctionDelete(f.ctx, FunctionLibrary).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := cs.EnsureFunctions(f.ctx); err != nil || n != 1 {
		t.Fatalf("one primary without it: loaded %d, %v", n, err)
	}
}
