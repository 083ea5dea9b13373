package audit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"podium/internal/redistest"
)

var srv *redistest.Server

func TestMain(m *testing.M) { redistest.Main(m, &srv) }

func TestRecordAndFilter(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	l := New(rdb)
	for i := range 25 {
		e := Entry{Time: time.Unix(int64(1000+i), 0), Actor: []string{"admin:alice", "key:bot"}[i%2], Action: "score.incr",
			Board: []string{"chess", "golf", "chess"}[i%3], Member: fmt.Sprintf("m%d", i), Before: "1", After: "2", Reason: "test"}
		if err := l.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
		// Streams of different boards are merged by entry id, which is
		// the millisecond: entries of one millisecond come by stream.
		time.Sleep(2 * time.Millisecond)
	}
	all, next, err := l.List(ctx, Filter{}, "", 10)
	if err != nil || len(all) != 10 || next == "" || all[0].Member != "m24" || all[9].Member != "m15" {
		t.Fatalf("first page: %d, next %q, %v", len(all), next, err)
	}
	page2, _, _ := l.List(ctx, Filter{}, next, 10)
	if page2[0].Member != "m14" {
		t.Fatalf("second page starts at %s", page2[0].Member)
	}
	golf, _, _ := l.List(ctx, Filter{Board: "golf"}, "", 100)
	if len(golf) != 8 {
		t.Fatalf("golf entries %d", len(golf))
	}
	both, _, _ := l.List(ctx, Filter{Board: "chess", Actor: "key:bot"}, "", 3)
	for _, e := range both {
		if e.Board != "chess" || e.Actor != "key:bot" {
			t.Fatalf("filter leaked %+v", e)
		}
	}
	if len(both) != 3 {
		t.Fatalf("board+actor: %d", len(both))
	}
	if actors, _ := l.Actors(ctx); len(actors) != 2 || actors[0] != "admin:alice" {
		t.Fatalf("actors %v", actors)
	}
	if e := all[0]; e.Time.Unix() != 1024 || e.Reason != "test" || e.Before != "1" {
		t.Fatalf("entry %+v", e)
	}
}

// TestListRefusesBadCursors: a cursor that is not an entry id is the caller's
// mistake (ErrBadCursor), never a Redis error; "0-0" has nothing before it.
func TestListRefusesBadCursors(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	l := New(rdb)
	if err := l.Record(ctx, Entry{Actor: "admin:alice", Action: "score.set"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"garbage", "-1", "1", "1-", "-", "+1-0", " 1-0", "1-0 ", "99999999999999999999-0", "1-18446744073709551616", "0x1-0",
		"1-0.", "1-0.zzzzzzzzzzzzzzzz.0", "1-0.000000000000000a.-1", "1-0.000000000000000a.01", "1-0.000000000000000a", "1-0.000000000000000a.1001"} {
		if _, _, err := l.List(ctx, Filter{}, c, 10); !errors.Is(err, ErrBadCursor) {
			t.Errorf("List before %q: %v, want ErrBadCursor", c, err)
		}
	}
	for _, c := range []string{"0-0", "0-1", "18446744073709551615-18446744073709551615", "1767225600000-0", "1767225600000-0.000000000000000a.3"} {
		if _, _, err := l.List(ctx, Filter{}, c, 10); err != nil {
			t.Errorf("List before %q: %v", c, err)
		}
	}
}
