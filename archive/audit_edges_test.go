package archive

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// TestAuditCopyConcurrent: replicas copying at once, a stream of several
// chunks, add each entry once.
func TestAuditCopyConcurrent(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		w := newAuditLog(t, db, 2000, "chess")
		w.copyAll() // an empty log: it only gets its mark
		w.write("chess", 3*auditChunk+17, 1)
		w.write("chess", 4, 100)
		var wg sync.WaitGroup
		counts := make([]int, 3)
		errs := make([]error, 3)
		for i := range counts {
			a := &Archiver{Store: redisstore.NewStore(rsrv.ClientDB(t, w.rdb.Options().DB)), DB: db, Log: quiet}
			wg.Go(func() { counts[i], errs[i] = a.CopyAudit(w.ctx) })
		}
		wg.Wait()
		entries := len(w.entries["chess"])
		if sum := counts[0] + counts[1] + counts[2]; sum != entries || errs[0] != nil || errs[1] != nil || errs[2] != nil {
			t.Fatalf("concurrent copies added %v entries (want %d in all): %v", counts, entries, errs)
		}
		if n := w.archived("chess"); n != entries {
			t.Fatalf("the archive holds %d entries, want %d", n, entries)
		}
		last, _ := w.rdb.XRevRangeN(w.ctx, redisstore.AuditStream("chess"), "+", "-", 1).Result()
		if mark := w.rdb.HGet(w.ctx, redisstore.AuditRows("chess"), auditMark).Val(); len(last) != 1 || mark != last[0].ID {
			t.Fatalf("mark %s, newest entry %v", mark, last)
		}
		w.check(100)
	})
}

// TestAuditWithoutArchiver: a board no archiver has copied trims as before,
// and its listing is what Redis holds.
func TestAuditWithoutArchiver(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		const keep = 100
		w := newAuditLog(t, db, keep, "chess")
		w.write("chess", 150, 1)
		w.write("chess", 5, 30)
		w.bounded("chess", keep)
		for _, s := range []string{redisstore.AuditStream("chess"), redisstore.AuditActorStream("chess", auditActors[0])} {
			if held, _ := w.streamRows("chess", s); held < keep-30 {
				t.Fatalf("%s holds %d rows; keep %d", s, held, keep)
			}
		}
		if w.rdb.HExists(w.ctx, redisstore.AuditRows("chess"), auditMark).Val() {
			t.Fatal("a mark without an archiver")
		}
		held, _ := w.streamRows("chess", redisstore.AuditStream("chess"))
		got := w.list(audit.Filter{Board: "chess"}, "", 11)
		var members []string
		for _, e := range got {
			members = append(members, e.Member)
		}
		if want := w.want("chess", "")[:held]; !slices.Equal(members, want) {
			t.Fatalf("listed %v, Redis holds %v", members, want)
		}
	})
}

// TestAuditActorIDs: an actor's stream holds the board stream's entries
// under the same ids, which the archive's by-actor reads rely on.
func TestAuditActorIDs(t *testing.T) {
	t.Parallel()
	rdb := newRedis(t)
	w := &auditLog{t: t, ctx: context.Background(), rdb: rdb, entries: map[string][][]string{}, actor: map[string]string{}}
	w.store = redisstore.NewStore(rdb)
	w.log = audit.New(rdb)
	if _, err := w.store.CreateBoard(w.ctx, board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.AllTime}}); err != nil {
		t.Fatal(err)
	}
	w.write("chess", 20, 1)
	w.write("chess", 2, 3)
	all, _ := rdb.XRange(w.ctx, redisstore.AuditStream("chess"), "-", "+").Result()
	ids := map[string]string{}
	for _, m := range all {
		ids[m.ID] = fmt.Sprint(m.Values["actor"])
	}
	n := 0
	for _, actor := range auditActors {
		msgs, _ := rdb.XRange(w.ctx, redisstore.AuditActorStream("chess", actor), "-", "+").Result()
		for _, m := range msgs {
			if ids[m.ID] != actor {
				t.Fatalf("%s's entry %s is not the board's (%q)", actor, m.ID, ids[m.ID])
			}
		}
		n += len(msgs)
	}
	if n != len(all) || n != 22 {
		t.Fatalf("actor streams hold %d entries, the board's %d", n, len(all))
	}
}
