package redisstore

import (
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
