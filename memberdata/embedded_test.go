package memberdata

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// TestOnTheEmbeddedStore: `make run` keeps its data in miniredis, whose Lua
// and streams are its own implementation: the data and the erasure work
// there too (without an archive).
func TestOnTheEmbeddedStore(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	store := redisstore.NewStore(rdb)
	svc := &Service{Store: store, Audit: audit.New(rdb)}
	b, err := store.CreateBoard(ctx, board.Board{ID: "mini", Title: "Mini", Periods: []board.Kind{board.Weekly, board.AllTime, board.Last24h}, Teams: board.TeamsBest})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []board.Submission{{Member: "alice", Name: "Alice", Team: "red", Score: 5}, {Member: "bob", Team: "red", Score: 3}} {
		if _, err := store.Submit(ctx, "mini", s, board.Author{Actor: "test", Reason: "for alice"}); err != nil {
			t.Fatal(err)
		}
	}
	q := redisstore.HooksKey("mini") + ":q"
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: q, Values: []any{"hook", "h", "event", "e", "type", "leader.changed", "at", "1", "period", "{}",
		"data", `{"leader":{"m":"alice","n":"Alice","s":"5","r":1},"previous":null}`}})
	rdb.XGroupCreate(ctx, q, redisstore.HooksGroup, "0")
	if d, err := svc.Data(ctx, &b, "alice"); err != nil || d.Name != "Alice" || len(d.Periods) != 3 || len(d.Audit) != 2 {
		t.Fatalf("data: %+v %v", d, err)
	}
	out, err := svc.Erase(ctx, &b, "alice", board.RemoveMember, board.Author{Actor: "test"})
	if err != nil || out.Status != board.ErasedNow {
		t.Fatalf("erase: %+v %v", out, err)
	}
	for k, v := range keyDump(t, rdb) {
		if strings.Contains(strings.ToLower(k+v), "alice") {
			t.Errorf("%s: %s", k, v)
		}
	}
	if st, _ := store.TeamPage(ctx, &b, board.Period{Kind: board.AllTime}, 0, 10); len(st.Entries) != 1 || st.Entries[0].Score != 3 {
		t.Errorf("the team's best after the removal: %+v", st.Entries)
	}
	if _, err := svc.Data(ctx, &b, "alice"); !errors.Is(err, ErrNoMember) {
		t.Errorf("data after: %v", err)
	}
}
