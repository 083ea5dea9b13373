package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestEraseFrozenAndWebhooks: a frozen board's copies and the names kept
// for its public lose the member; so do the webhooks' state and queue: a
// delivery already made is deleted, one pending or not yet made is queued
// again under the pseudonym, one that does not name the member stays.
func TestEraseFrozenAndWebhooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.eraseBoard()
	if _, err := f.store.Freeze(f.ctx, b.ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	f.write(b, "alice", board.Incr, 1) // takes the freeze: its copies hold alice
	if _, err := f.store.SetName(f.ctx, b.ID, "alice", "Al", tester); err != nil {
		t.Fatal(err) // the public keeps "Alice L." in the frozen names
	}
	q, state := HooksKey(b.ID)+":q", HooksKey(b.ID)+":state"
	row := func(m string) string { return `{"m":"` + m + `","n":"` + strings.ToUpper(m) + `","s":"18","r":2}` }
	add := func(data string) string {
		id, err := f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: q, Values: []any{"hook", "h1", "event", b.ID + "-1", "type", "top.entered", "at", "1", "period", "{}", "data", data}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	read := func() {
		if err := f.rdb.XReadGroup(f.ctx, &redis.XReadGroupArgs{Group: HooksGroup, Consumer: "c1", Streams: []string{q, ">"}, Count: 1}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	sent := add(`{"entered":[` + row("alice") + `],"top":[` + row("alice") + `]}`)
	if err := f.rdb.XGroupCreate(f.ctx, q, HooksGroup, "0").Err(); err != nil {
		t.Fatal(err)
	}
	read()
	f.rdb.XAck(f.ctx, q, HooksGroup, sent)
	pending := add(`{"leader":` + row("alice") + `,"previous":null}`)
	read()
	add(`{"entered":[` + row("bob") + `],"top":[` + row("bob") + `,` + row("alice") + `]}`) // not yet sent
	other := add(`{"entered":[` + row("carol") + `],"top":{}}`)
	f.rdb.HSet(f.ctx, state, "week", `{"p":"week:2026-W47","n":3,"ids":["carol","alice","bob"]}`)

	p, _ := f.erase(b, "alice", board.Pseudonymise)
	if left := mentions(keyDump(t, f.rdb, tagOf(b.ID)+"*"), "alice"); len(left) > 0 {
		t.Errorf("keys still name the member:\n%s", strings.Join(left, "\n"))
	}
	msgs, err := f.rdb.XRange(f.ctx, q, "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.ID)
		if data, _ := m.Values["data"].(string); m.ID != other && (!strings.Contains(data, p) || strings.Contains(data, "ALICE")) {
			t.Errorf("queued again: %s", data)
		}
	}
	if len(ids) != 3 || ids[0] != other || ids[1] <= pending {
		t.Errorf("the queue after: %v (the one sent %s, pending %s, other %s)", ids, sent, pending, other)
	}
	if n, _ := f.rdb.XPending(f.ctx, q, HooksGroup).Result(); n.Count != 0 {
		t.Errorf("still pending: %+v", n)
	}
	if st := f.rdb.HGet(f.ctx, state, "week").Val(); !strings.Contains(st, p) {
		t.Errorf("webhook state: %s", st)
	}
}

// TestEraseDuringWrites: writes for the member racing the erasure each land
// wholly before it (under the pseudonym) or after it (a new member of the
// id): together they add up, and every period's structures agree.
func TestEraseDuringWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.eraseBoard()
	start := f.views(b)
	var wg sync.WaitGroup
	const writers, each = 4, 25
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "alice", Op: board.Incr, Score: 1}, board.Author{Actor: "writer" + strconv.Itoa(w)}); err != nil {
					t.Errorf("write %d: %v", i, err)
				}
			}
		}()
	}
	p := board.NewPseudonym()
	st, err := f.store.EraseMember(f.ctx, b.ID, Erasure{Member: "alice", Pseudonym: p, By: tester})
	wg.Wait()
	if err != nil || !st.Erased {
		t.Fatalf("erase: %+v %v", st, err)
	}
	if !strings.Contains(strings.Join(start, " "), "all: alice=17@") {
		t.Fatalf("alice before: %v", start)
	}
	ctx := LiveStandings(f.ctx)
	all := b.Current(board.AllTime, f.clock.Now())
	sts, err := f.store.Ranks(ctx, b, all, []string{p, "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sts[0].Score + sts[1].Score; got != 17+writers*each {
		t.Errorf("all time: the pseudonym %g and the new alice %g, want %d in all", sts[0].Score, sts[1].Score, 17+writers*each)
	}
	f.checkConsistent(b)
}

// checkConsistent checks every period of b: its entries hash and its
// sorted set name the same members, every member has a display name, and
// the team standing is the sum of its members' scores.
func (f *fixture) checkConsistent(b *board.Board) {
	f.t.Helper()
	zs, err := f.rdb.SMembers(f.ctx, periodsKey(b.ID)).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	teams, _ := f.rdb.HGetAll(f.ctx, teamKey(b.ID)).Result()
	for _, z := range zs {
		es, _ := f.rdb.HGetAll(f.ctx, entriesKey(z)).Result()
		n, _ := f.rdb.ZCard(f.ctx, z).Result()
		if int(n) != len(es) {
			f.t.Errorf("%s: %d entries, %d in its hash", z, n, len(es))
		}
		sums := map[string]float64{}
		for id, e := range es {
			v, err := f.rdb.ZScore(f.ctx, z, e).Result()
			if err != nil || !strings.HasSuffix(e, "|"+id) {
				f.t.Errorf("%s: %s -> %q: %v", z, id, e, err)
			}
			if f.rdb.HExists(f.ctx, namesKey(b.ID), id).Val() != true {
				f.t.Errorf("%s: %s has no name", z, id)
			}
			if t := teams[id]; t != "" {
				sums[t] += v
			}
		}
		for t, want := range sums {
			if got := f.rdb.ZScore(f.ctx, z+":t", t).Val(); got != want {
				f.t.Errorf("%s: team %s has %g, its members %g", z, t, got, want)
			}
		}
	}
}

// TestRedactStream: a stream longer than a chunk is rewritten with its ids
// kept, entries appended meanwhile copied as they are (after the cut),
// entries trimmed from its head meanwhile gone from the copy too.
func TestRedactStream(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tagOf(testBoardID(t)) + ":audit"
	f.rdb.Del(f.ctx, key)
	t.Cleanup(func() { f.rdb.Del(context.Background(), key) })
	var ids []string
	for i := range 3*redactChunk + 5 {
		member := "bob"
		if i%7 == 0 {
			member = "alice"
		}
		id, err := f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: key, Values: []any{"action", "score.incr", "member", member, "reason", "round " + strconv.Itoa(i) + " by Alice"}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	cut := ids[len(ids)-1]
	// A writer appends and trims while the rewrite runs.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 40 {
			f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: key, Values: []any{"action", "score.incr", "member", "alice", "reason", fmt.Sprint("later ", i)}})
			if i == 20 {
				f.rdb.XDel(f.ctx, key, ids[0], ids[1])
			}
		}
	}()
	n, err := f.store.RedactStream(f.ctx, key, Redaction{Member: "alice", Pseudonym: "erased-1", Names: []string{"Alice"}, Cut: cut})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := f.rdb.XRange(f.ctx, key, "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	later := 0
	for _, m := range msgs {
		member, reason := m.Values["member"], m.Values["reason"].(string)
		if idAtOrBefore(m.ID, cut) {
			if member == "alice" || strings.Contains(reason, "Alice") {
				t.Errorf("%s not redacted: %v", m.ID, m.Values)
			}
			continue
		}
		later++
		if member != "alice" || !strings.HasPrefix(reason, "later") {
			t.Errorf("%s after the cut changed: %v", m.ID, m.Values)
		}
	}
	if n == 0 || len(msgs) < len(ids)-2 || later == 0 {
		t.Errorf("%d changed; %d entries, %d after the cut", n, len(msgs), later)
	}
	if ttl := f.rdb.PTTL(f.ctx, key).Val(); ttl != -1 {
		t.Errorf("the stream's TTL after the rewrite: %v", ttl)
	}
}

// idAtOrBefore compares two stream entry ids.
func idAtOrBefore(a, b string) bool {
	var am, as, bm, bs uint64
	fmt.Sscanf(a, "%d-%d", &am, &as)
	fmt.Sscanf(b, "%d-%d", &bm, &bs)
	return am < bm || (am == bm && as <= bs)
}
