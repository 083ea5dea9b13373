package memberdata

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/archive"
	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

var root = board.Author{Actor: "admin:root"}

// TestData: the copy holds the member's name and team, its standings in
// Redis (open, windowed, closed), its archived rows, its race points (in
// Redis, and those of the expired week from the archive) and its audit entries
// from Redis and the archive; an unknown member is ErrNoMember.
func TestData(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		f.history()
		d, err := f.svc.Data(f.ctx, &f.b, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if d.Name != "Alice L." || d.Team != "red" || d.Limit != Limit || len(d.Truncated) > 0 {
			t.Errorf("data: %+v", d)
		}
		var got []string
		for _, s := range d.Periods {
			got = append(got, fmt.Sprintf("%s=%s@%d/%d open=%v", s.Period, s.Score, s.Rank, s.Of, s.Open))
		}
		want := "[week:2026-W47=1@1/2 open=true week:2026-W46=7@2/4 open=false all=18@3/4 open=true last7d=18@3/4 open=true]"
		if fmt.Sprint(got) != want {
			t.Errorf("periods: %v, want %s", got, want)
		}
		got = nil
		for _, s := range d.Archived {
			got = append(got, fmt.Sprintf("%s=%s@%d/%d %s", s.Period, s.Score, s.Rank, s.Of, s.Name))
		}
		if want := "[week:2026-W46=7@2/4 Alice L. week:2026-W45=10@2/3 Alice L.]"; fmt.Sprint(got) != want {
			t.Errorf("archived: %v, want %s", got, want)
		}
		got = nil
		for _, r := range d.Race {
			got = append(got, r.Period+"="+r.Score.String())
		}
		if want := "[all=18 week:2026-W47=1 all=17 week:2026-W46=7 all=10 week:2026-W45=10]"; fmt.Sprint(got) != want { // W45 from the archive
			t.Errorf("race: %v, want %s", got, want)
		}
		got = nil
		for _, c := range d.Audit {
			got = append(got, c.Action)
		}
		if want := "[member.rename score.incr score.incr score.incr member.team]"; fmt.Sprint(got) != want {
			t.Errorf("audit: %v, want %s", got, want)
		}
		if _, err := f.svc.Data(f.ctx, &f.b, "nobody"); !errors.Is(err, ErrNoMember) || !errors.Is(err, board.ErrNotFound) {
			t.Errorf("an unknown member: %v", err)
		}
	})
}

// views reads every standing of the fixture's board, members and teams,
// as lines "period: member=score@rank": W45 from the archive.
func (f *fixture) views() []string {
	f.t.Helper()
	ctx := redisstore.LiveStandings(f.ctx)
	var out []string
	for _, label := range []string{"week:2026-W45", "week:2026-W46", "week:2026-W47", "all", "last7d"} {
		p, err := periodOf(&f.b, label)
		if err != nil {
			f.t.Fatal(err)
		}
		pg, err := f.svc.Store.Page(ctx, &f.b, p, 0, 100)
		if err != nil {
			f.t.Fatal(err)
		}
		tp, err := f.svc.Store.TeamPage(ctx, &f.b, p, 0, 100)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, e := range append(pg.Entries, tp.Entries...) {
			out = append(out, fmt.Sprintf("%s: %s %s=%g@%d", label, e.Name, e.Member, e.Score, e.Rank))
		}
	}
	return out
}

// TestErase: after the erasure, in either mode, no key of Redis, no row
// of the archive, no export and no audit entry holds the member's id or
// names; others keep their ranks (pseudonymise) or close up in the open
// periods (remove); a second erasure answers that it was erased.
func TestErase(t *testing.T) {
	for _, mode := range []board.EraseMode{board.Pseudonymise, board.RemoveMember} {
		t.Run(string(mode), func(t *testing.T) {
			backends(t, func(t *testing.T, f *fixture) {
				f.history()
				q := redisstore.HooksKey(f.b.ID) + ":q" // a delivery not yet sent
				f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: q, Values: []any{"hook", "h", "event", "e", "type", "leader.changed", "at", "1", "period", "{}",
					"data", `{"leader":{"m":"alice","n":"Alice L.","s":"18","r":1},"previous":null}`}})
				before := f.views()
				out, err := f.svc.Erase(f.ctx, &f.b, "alice", mode, root)
				if err != nil || out.Status != board.ErasedNow || fmt.Sprint(out.Done) != "[redis audit archive record]" || out.Mode != mode {
					t.Fatalf("erase: %+v %v", out, err)
				}
				p := out.Pseudonym
				if left := excerpt(f.dump(), "alice"); left != "" {
					t.Errorf("still holds the member:\n%s", left)
				}
				want := strings.Split(strings.NewReplacer("Alice L. alice", p+" "+p, "alice", p).Replace(strings.Join(before, "\n")), "\n")
				if mode == board.RemoveMember {
					want = removed(before, p)
				}
				if got := f.views(); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("standings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				f.checkExports()
				f.checkListing(p)
				again, err := f.svc.Erase(f.ctx, &f.b, "alice", board.Pseudonymise, root)
				if err != nil || again.Status != board.ErasedBefore || again.Mode != mode || again.Pseudonym != "" {
					t.Errorf("a second erasure: %+v %v", again, err)
				}
				if _, err := f.svc.Data(f.ctx, &f.b, "alice"); !errors.Is(err, ErrNoMember) {
					t.Errorf("the erased member's data: %v", err)
				}
				if _, err := f.svc.Erase(f.ctx, &f.b, "nobody", board.Pseudonymise, root); !errors.Is(err, ErrNoMember) {
					t.Errorf("an unknown member's erasure: %v", err)
				}
			})
		})
	}
}

// removed is the standings before with alice out of the open periods (and
// her team's standing less her score there), under p in the closed ones.
func removed(before []string, p string) []string {
	rows := func(label string, rs ...string) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			id, _, _ := strings.Cut(r, "=")
			out[i] = label + ": " + id + " " + r
		}
		return out
	}
	open := map[string][]string{
		"week:2026-W47": rows("week:2026-W47", "bob=1@1", "red=1@1"),
		"all":           rows("all", "carol=35@1", "bob=24@2", "dave=7@3", "blue=35@1", "red=24@2"),
		"last7d":        rows("last7d", "carol=35@1", "bob=24@2", "dave=7@3", "blue=35@1", "red=24@2"),
	}
	var out []string
	for _, line := range before {
		label, _, _ := strings.Cut(line, ": ")
		if now, ok := open[label]; ok {
			out = append(out, now...) // once: the label's next lines add nothing
			open[label] = nil
			continue
		}
		out = append(out, strings.NewReplacer("Alice L. alice", p+" "+p, "alice", p).Replace(line))
	}
	return out
}

// checkExports reads every period whole, as the exports do: from Redis or
// the archive.
func (f *fixture) checkExports() {
	f.t.Helper()
	r := archive.NewReader(f.svc.Store, f.svc.Archiver.DB, 1)
	for _, label := range []string{"week:2026-W45", "week:2026-W46", "week:2026-W47", "all", "last7d"} {
		p, _ := periodOf(&f.b, label)
		err := r.Each(f.ctx, &f.b, p, func(es []board.Entry) error {
			for _, e := range es {
				if strings.Contains(strings.ToLower(e.Member+e.Name), "alice") {
					f.t.Errorf("the export of %s holds %s %s", label, e.Member, e.Name)
				}
			}
			return nil
		})
		if err != nil {
			f.t.Fatal(err)
		}
	}
}

// checkListing pages through the board's audit log (Redis, then the
// archive): nothing names the member, the erasure's entry names p.
func (f *fixture) checkListing(p string) {
	f.t.Helper()
	var all []audit.Entry
	for cursor := ""; ; {
		es, next, err := f.svc.Audit.List(f.ctx, audit.Filter{Board: f.b.ID}, cursor, 3)
		if err != nil {
			f.t.Fatal(err)
		}
		all = append(all, es...)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(all) < 10 || all[0].Action != "member.erase" || all[0].Member != p {
		f.t.Errorf("the listing: %d entries, the first %+v", len(all), all[0])
	}
	for _, e := range all {
		if strings.Contains(strings.ToLower(fmt.Sprint(e)), "alice") {
			f.t.Errorf("the listing shows %+v", e)
		}
	}
}

// TestEraseResumes: an erasure that fails at the archive says what it did
// and what is left; run again, it finishes with the same pseudonym; a
// cursor of the audit log handed out before goes on after.
func TestEraseResumes(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		f.history()
		first, cursor, err := f.svc.Audit.List(f.ctx, audit.Filter{Board: f.b.ID}, "", 2)
		if err != nil || cursor == "" {
			t.Fatal(err)
		}
		f.svc.Archiver.DB.Close()
		out, err := f.svc.Erase(f.ctx, &f.b, "alice", board.Pseudonymise, root)
		if !errors.Is(err, ErrIncomplete) || out.Status != board.ErasedIncomplete || fmt.Sprint(out.Done) != "[redis audit]" ||
			fmt.Sprint(out.Pending) != "[archive record]" || out.Pseudonym == "" {
			t.Fatalf("with the archive down: %+v %v", out, err)
		}
		f.open()
		again, err := f.svc.Erase(f.ctx, &f.b, "alice", board.RemoveMember, root)
		if err != nil || again.Status != board.ErasedNow || again.Pseudonym != out.Pseudonym || again.Mode != board.Pseudonymise ||
			fmt.Sprint(again.Done) != "[audit archive record]" {
			t.Fatalf("run again: %+v %v", again, err)
		}
		if left := excerpt(f.dump(), "alice"); left != "" {
			t.Errorf("still holds the member:\n%s", left)
		}
		rest, _, err := f.svc.Audit.List(f.ctx, audit.Filter{Board: f.b.ID}, cursor, 100)
		if err != nil || len(rest) == 0 {
			t.Fatalf("the next page: %d %v", len(rest), err)
		}
		ids := []string{first[0].ID, first[1].ID}
		for _, e := range rest {
			ids = append(ids, e.ID)
		}
		// Newest entry first, each row once.
		if !slices.IsSortedFunc(ids, func(a, b string) int { return -strings.Compare(pad(a), pad(b)) }) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Errorf("the listing across the erasure: %v", ids)
		}
	})
}

// pad makes the entry id of a listing's row ("<ms>-<seq>.<src>.<item>")
// sort as text.
func pad(id string) string {
	ms, rest, _ := strings.Cut(id, "-")
	seq, _, _ := strings.Cut(rest, ".")
	return fmt.Sprintf("%020s-%020s", ms, seq)
}

// TestEraseDuringWrites: scores sent for the member while it is erased
// each land wholly before the erasure (under the pseudonym) or after it,
// as a new member of the id: together they add up, and the audit log names
// the id only in entries written after the erasure's own.
func TestEraseDuringWrites(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		f.history()
		const writers, each = 4, 20
		var wg sync.WaitGroup
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if _, err := f.svc.Store.Submit(f.ctx, f.b.ID, board.Submission{Member: "alice", Op: board.Incr, Score: 1}, root); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		out, err := f.svc.Erase(f.ctx, &f.b, "alice", board.Pseudonymise, root)
		wg.Wait()
		if err != nil || out.Status != board.ErasedNow {
			t.Fatalf("erase: %+v %v", out, err)
		}
		all := board.Period{Kind: board.AllTime}
		sts, err := f.svc.Store.Ranks(redisstore.LiveStandings(f.ctx), &f.b, all, []string{out.Pseudonym, "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if got := sts[0].Score + sts[1].Score; got != 18+writers*each {
			t.Errorf("all time: %g under the pseudonym, %g as the new alice; want %d", sts[0].Score, sts[1].Score, 18+writers*each)
		}
		msgs, err := f.rdb.XRange(f.ctx, redisstore.AuditStream(f.b.ID), "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		erased := false
		for _, m := range msgs {
			if m.Values["action"] == "member.erase" {
				erased = true
			} else if !erased && strings.Contains(fmt.Sprint(m.Values), "alice") {
				t.Errorf("an entry before the erasure names alice: %v", m.Values)
			}
		}
		if !erased {
			t.Error("no erasure entry")
		}
	})
}
