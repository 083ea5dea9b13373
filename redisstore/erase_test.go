package redisstore

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// keyDump reads every key matching pattern, as text: its name, then every
// value, field, member and score it holds, whatever its type; streams with
// their entries' ids and fields and their consumer groups.
func keyDump(t *testing.T, rdb redis.UniversalClient, pattern string) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		typ, err := rdb.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		var v any
		switch typ {
		case "string":
			v, err = rdb.Get(ctx, k).Result()
		case "hash":
			v, err = rdb.HGetAll(ctx, k).Result()
		case "list":
			v, err = rdb.LRange(ctx, k, 0, -1).Result()
		case "set":
			v, err = rdb.SMembers(ctx, k).Result()
		case "zset":
			v, err = rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		case "stream":
			var msgs []redis.XMessage
			msgs, err = rdb.XRange(ctx, k, "-", "+").Result()
			groups, _ := rdb.XInfoGroups(ctx, k).Result()
			v = fmt.Sprint(msgs, groups)
		case "none":
			continue // expired meanwhile
		default:
			t.Fatalf("%s: a key of type %s", k, typ)
		}
		if err != nil && err != redis.Nil {
			t.Fatalf("%s: %v", k, err)
		}
		out[k] = fmt.Sprint(v)
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mentions lists the keys of dump whose name or content holds one of
// words, ignoring case.
func mentions(dump map[string]string, words ...string) []string {
	var out []string
	for k, v := range dump {
		text := strings.ToLower(k + " " + v)
		for _, w := range words {
			if strings.Contains(text, strings.ToLower(w)) {
				out = append(out, k+": "+v)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// Two weeks of a team board with a rolling window: alice (named, then
// renamed) in team red with bob, carol in blue; last week is closed but
// still in Redis.
func (f *fixture) eraseBoard() *board.Board {
	f.t.Helper()
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime, board.Last7d}, Teams: board.TeamsSum})
	f.at(time.Date(2026, 11, 12, 10, 0, 0, 0, time.UTC)) // 2026-W46
	for _, s := range []board.Submission{
		{Member: "alice", Name: "Alice Liddell", Team: "red", Op: board.Incr, Score: 10},
		{Member: "bob", Team: "red", Op: board.Incr, Score: 20},
		{Member: "carol", Team: "blue", Op: board.Incr, Score: 5},
	} {
		if _, err := f.store.Submit(f.ctx, b.ID, s, board.Author{Actor: "test", Reason: "import of week 46"}); err != nil {
			f.t.Fatal(err)
		}
	}
	f.at(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)) // 2026-W47
	f.write(b, "alice", board.Incr, 7)
	f.write(b, "bob", board.Incr, 3)
	f.write(b, "carol", board.Incr, 30)
	f.write(b, "dave", board.Incr, 7)
	if _, err := f.store.SetName(f.ctx, b.ID, "alice", "Alice L.", board.Author{Actor: "test", Reason: "Alice Liddell asked for a shorter name"}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "bob", Op: board.Incr, Score: 1}, board.Author{Actor: "test", Reason: "helped alice"}); err != nil {
		f.t.Fatal(err)
	}
	for m, fs := range map[string][]string{"alice": {"bob", "carol"}, "bob": {"alice", "carol"}, "carol": {"alice"}} {
		if _, _, err := f.store.SetFriends(f.ctx, b.ID, m, fs, board.Author{Actor: "test"}); err != nil {
			f.t.Fatal(err)
		}
	}
	return b
}

// views reads every standing of board b as lines "period: member=score@rank",
// the team standings too, live (as the console reads them).
func (f *fixture) views(b *board.Board) []string {
	f.t.Helper()
	ctx := LiveStandings(f.ctx)
	now := f.clock.Now()
	ps := []board.Period{b.Current(board.Weekly, now), b.Current(board.AllTime, now), b.Current(board.Last7d, now),
		b.Current(board.Weekly, now.AddDate(0, 0, -7))}
	var out []string
	for _, p := range ps {
		pg, err := f.store.Page(ctx, b, p, 0, 100)
		if err != nil {
			f.t.Fatal(err)
		}
		tp, err := f.store.TeamPage(ctx, b, p, 0, 100)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, e := range append(pg.Entries, tp.Entries...) {
			out = append(out, fmt.Sprintf("%s: %s=%g@%d", p, e.Member, e.Score, e.Rank))
		}
	}
	return out
}

// erase runs every Redis step of an erasure: the script, the audit streams,
// the record.
func (f *fixture) erase(b *board.Board, member string, mode board.EraseMode) (string, EraseStep) {
	f.t.Helper()
	p := board.NewPseudonym()
	st, err := f.store.EraseMember(f.ctx, b.ID, Erasure{Member: member, Pseudonym: p, Mode: mode, By: tester})
	if err != nil {
		f.t.Fatal(err)
	}
	if !st.Erased || st.Record == nil || st.Record.Pseudonym != p {
		f.t.Fatalf("erase %s: %+v", member, st)
	}
	streams, err := f.store.AuditStreams(f.ctx, b.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, s := range streams {
		if _, err := f.store.RedactStream(f.ctx, s, Redaction{Board: b.ID, Member: member, Pseudonym: p, Names: st.Names, Cut: st.Record.Cut}); err != nil {
			f.t.Fatal(err)
		}
	}
	if err := f.store.FinishErasure(f.ctx, b.ID, member, *st.Record); err != nil {
		f.t.Fatal(err)
	}
	return p, st
}

// TestErasePseudonymise: every key of the board is free of the member's id
// and names, every standing reads as before with the pseudonym in the
// member's place, and a second erasure finds the record.
func TestErasePseudonymise(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.eraseBoard()
	before := f.views(b)
	p, st := f.erase(b, "alice", board.Pseudonymise)
	if fmt.Sprint(st.Names) != "[Alice L.]" {
		t.Errorf("names found: %q", st.Names)
	}
	if left := mentions(keyDump(t, f.rdb, tagOf(b.ID)+"*"), "alice"); len(left) > 0 {
		t.Errorf("keys still name the member:\n%s", strings.Join(left, "\n"))
	}
	want := strings.Split(strings.ReplaceAll(strings.Join(before, "\n"), "alice", p), "\n")
	if got := f.views(b); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("standings after:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if team, err := f.store.TeamOf(f.ctx, b, p); err != nil || team != "red" {
		t.Errorf("the pseudonym's team: %q %v", team, err)
	}
	again, err := f.store.EraseMember(f.ctx, b.ID, Erasure{Member: "alice", Pseudonym: board.NewPseudonym(), By: tester})
	if err != nil || again.Erased || again.Record == nil || !again.Record.Done || again.Record.Pseudonym != "" {
		t.Errorf("a second erasure: %+v %v", again, err)
	}
	if _, err := f.store.EraseMember(f.ctx, "no-such-board", Erasure{Member: "alice", Pseudonym: p, By: tester}); err == nil {
		t.Error("an unknown board's erasure passed")
	}
}

// TestEraseRemove: the member leaves the open periods, whose ranks and team
// standings close up, and is pseudonymised in the closed week.
func TestEraseRemove(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.eraseBoard()
	p, _ := f.erase(b, "alice", board.RemoveMember)
	if left := mentions(keyDump(t, f.rdb, tagOf(b.ID)+"*"), "alice"); len(left) > 0 {
		t.Errorf("keys still name the member:\n%s", strings.Join(left, "\n"))
	}
	w46, w47 := "week:2026-W46", "week:2026-W47"
	want := []string{
		w47 + ": carol=30@1", w47 + ": dave=7@2", w47 + ": bob=4@3", w47 + ": blue=30@1", w47 + ": red=4@2",
		"all: carol=35@1", "all: bob=24@2", "all: dave=7@3", "all: blue=35@1", "all: red=24@2",
		"last7d: carol=35@1", "last7d: bob=24@2", "last7d: dave=7@3", "last7d: blue=35@1", "last7d: red=24@2",
		w46 + ": bob=20@1", w46 + ": " + p + "=10@2", w46 + ": carol=5@3", w46 + ": red=30@1", w46 + ": blue=5@2",
	}
	if got := f.views(b); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("standings after:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
