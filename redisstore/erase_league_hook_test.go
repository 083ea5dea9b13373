package redisstore

import (
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// TestEraseLeagueClosedDelivery: a league.closed delivery still queued
// (not yet sent, or waiting for a retry) names the promoted and relegated
// members by id and name; an erasure renames the member there as in every
// other event's rows, its name gone, and an empty list stays a list.
func TestEraseLeagueClosedDelivery(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.eraseBoard()
	q := HooksKey(b.ID) + ":q"
	data := `{"league":{"tiers":["Bronze","Silver"],"promoted":[{"member":"alice","name":"Alice Liddell","from":"Bronze","to":"Silver","cohort":1,"rank":1},` +
		`{"member":"bob","name":"Bob","from":"Bronze","to":"Silver","cohort":2,"rank":1}],"relegated":[],"moves":{"up":2,"down":0,"stay":1},"truncated":false}}`
	if err := f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: q, Values: []any{"hook", "h1", "event", b.ID + "-1", "type", "league.closed", "at", "1", "period", "{}", "data", data}}).Err(); err != nil {
		t.Fatal(err)
	}
	p, _ := f.erase(b, "alice", board.Pseudonymise)
	msgs, err := f.rdb.XRange(f.ctx, q, "-", "+").Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the queue: %v %v", msgs, err)
	}
	got, _ := msgs[0].Values["data"].(string)
	if strings.Contains(got, `"alice"`) || strings.Contains(got, "Liddell") || !strings.Contains(got, `"member":"`+p+`"`) || !strings.Contains(got, `"member":"bob"`) {
		t.Fatalf("queued league.closed after the erasure: %s", got)
	}
}

// TestEraseHeldDelivery: a score.held delivery still queued (a frozen
// board's waits for the reveal) carries the held write as the review queue
// kept it, the member's id, name and lower-cased name in it; an erasure
// renames the member there as in every other event, its name gone.
func TestEraseHeldDelivery(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{Rules: &board.Rules{MaxValue: units(10), OnBreak: board.RulesHold}})
	res, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "alice", Name: "Alice Liddell", Score: 11}, tester)
	if err != nil || !res.Held {
		t.Fatalf("held: %+v %v", res, err)
	}
	raw, err := f.rdb.HGet(f.ctx, heldKey(b.ID), strconv.FormatInt(res.HeldID, 10)).Result()
	if err != nil {
		t.Fatal(err)
	}
	q := HooksKey(b.ID) + ":q"
	data := `{"held_id":` + strconv.FormatInt(res.HeldID, 10) + `,"held":` + raw + `}` // as hooks/lua/held.lua queues it
	if err := f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: q, Values: []any{"hook", "h1", "event", b.ID + "-1", "type", "score.held", "at", "1", "period", "", "data", data}}).Err(); err != nil {
		t.Fatal(err)
	}
	p, _ := f.erase(b, "alice", board.Pseudonymise)
	msgs, err := f.rdb.XRange(f.ctx, q, "-", "+").Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the queue: %v %v", msgs, err)
	}
	got, _ := msgs[0].Values["data"].(string)
	if strings.Contains(got, "alice") || strings.Contains(got, "Liddell") || !strings.Contains(got, `"m":"`+p+`"`) {
		t.Fatalf("queued score.held after the erasure: %s", got)
	}
}
