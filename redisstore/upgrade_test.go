package redisstore

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestUpgradeDecimalUnits: a decimal board written before scores were kept in
// units (12.34 in the sorted set) is refused writes until Upgrade converts
// every period, its dense index and its recent changes, exactly.
func TestUpgradeDecimalUnits(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Format: board.Format{Type: board.Decimal, Decimals: 2}, RankStyle: board.Dense, Periods: []board.Kind{board.Daily, board.AllTime}})
	f.submit(b, "ann", 1234, board.Set)
	f.submit(b, "bob", 1234, board.Set)
	f.submit(b, "cat", 5, board.Set)
	// 2,500 more, so the conversion crosses any paging it might do.
	many := make([]board.Submission, 0, board.MaxBatch)
	for i := 1; i <= 2500; i++ {
		many = append(many, board.Submission{Member: fmt.Sprintf("m%04d", i), Score: float64(i), Op: board.Set})
		if len(many) == board.MaxBatch || i == 2500 {
			if _, err := f.store.SubmitBatch(f.ctx, b.ID, many, board.BatchOptions{By: tester}); err != nil {
				t.Fatal(err)
			}
			many = many[:0]
		}
	}
	// Rewrite it the way the earlier version stored it.
	f.rdb.HDel(f.ctx, defKey(b.ID), "units")
	for _, k := range b.Periods {
		z := ZSetKey(b.ID, b.Current(k, f.clock.Now()))
		es, _ := f.rdb.ZRangeWithScores(f.ctx, z, 0, -1).Result()
		for _, e := range es {
			f.rdb.ZAdd(f.ctx, z, redis.Z{Member: e.Member, Score: e.Score / 100})
		}
		if _, err := f.store.reindex(f.ctx, b, b.Current(k, f.clock.Now())); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := f.rdb.LRange(f.ctx, recentKey(b.ID), 0, -1).Result()
	f.rdb.Del(f.ctx, recentKey(b.ID))
	for _, r := range raw {
		// Every score in the entry as the earlier version wrote it: in dollars.
		r = regexp.MustCompile(`"(v|bs|as)":"(\d+)"`).ReplaceAllStringFunc(r, func(m string) string {
			parts := regexp.MustCompile(`"(v|bs|as)":"(\d+)"`).FindStringSubmatch(m)
			n, _ := strconv.Atoi(parts[2])
			return `"` + parts[1] + `":"` + strconv.FormatFloat(float64(n)/100, 'f', -1, 64) + `"`
		})
		f.rdb.RPush(f.ctx, recentKey(b.ID), r)
	}
	if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "dan", Score: 1}, tester); err == nil || !strings.Contains(err.Error(), "upgraded") {
		t.Fatalf("write to an old decimal board: %v", err)
	}
	done, err := f.store.Upgrade(f.ctx)
	if err != nil || !slices.Contains(done, b.ID) {
		t.Fatalf("upgrade: %v %v", done, err)
	}
	nb, _ := f.store.Board(f.ctx, b.ID)
	for _, k := range b.Periods {
		z := ZSetKey(b.ID, b.Current(k, f.clock.Now()))
		es, _ := f.rdb.ZRangeWithScores(f.ctx, z, 0, -1).Result()
		for _, e := range es {
			id, _ := encodingOf(&nb).split(e.Member.(string))
			want := map[string]float64{"ann": 1234, "bob": 1234, "cat": 5}[id]
			if want == 0 {
				n, _ := strconv.Atoi(strings.TrimPrefix(id, "m"))
				want = float64(n)
			}
			if e.Score != want {
				t.Fatalf("%s: %s is %v after the upgrade, want %v", k, id, e.Score, want)
			}
		}
		if got := rows(f.page(&nb, k, 0, 3)); !slices.Equal(got, []string{"1 m2500 2500", "2 m2499 2499", "3 m2498 2498"}) {
			t.Fatalf("%s after upgrade: %v", k, got)
		}
		st, _ := f.store.Ranks(f.ctx, &nb, b.Current(k, f.clock.Now()), []string{"ann", "bob", "cat"})
		if st[0].Rank != 1267 || st[1].Rank != 1267 || st[0].Score != 1234 || st[2].Score != 5 || st[2].Rank != 2496 { // dense: 1,266 distinct scores above 1234, 2,495 above 5
			t.Fatalf("%s dense ranks after upgrade: %+v", k, st)
		}
	}
	rec, _ := f.store.Recent(f.ctx, &nb, 5)
	if len(rec) != 5 || rec[0].Value != 2500 || rec[4].Value != 2496 || rec[0].Changes[0].After.Score != 2500 {
		t.Fatalf("recent after upgrade: %+v", rec)
	}
	f.submit(&nb, "dan", 1, board.Incr)
	if again, _ := f.store.Upgrade(f.ctx); slices.Contains(again, b.ID) {
		t.Fatal("upgraded twice")
	}
}

// TestScheduleForOldBoards: a board written before definitions had versions
// gets its schedule too, so FCALL works on it without an edit.
func TestScheduleForOldBoards(t *testing.T) {
	f := realFixture(t)
	b := f.board(board.Board{Periods: []board.Kind{board.Weekly, board.AllTime}})
	f.rdb.HDel(f.ctx, defKey(b.ID), "version")
	f.rdb.Del(f.ctx, schedKey(b.ID))
	if err := f.store.RefreshSchedules(f.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := fcall(f.ctx, f.rdb, b, "ann", "incr", "3"); err != nil {
		t.Fatalf("FCALL on a board without a version: %v", err)
	}
}
