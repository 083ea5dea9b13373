package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"podium/board"
	"podium/internal/redistest"
	"podium/redisstore"
)

// TestLiveOnEveryClusterPrimary opens, in Chromium, a board held by each
// primary of a real three-primary Redis Cluster, and writes to each straight
// into Redis: every page moves its row.
func TestLiveOnEveryClusterPrimary(t *testing.T) {
	t.Parallel()
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx := context.Background()
	cc := cluster.Client(t)
	a := launchOn(t, cc, nil)
	primaries, err := cluster.Primaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byPrimary := map[string]*board.Board{}
	for i := 0; len(byPrimary) < len(primaries); i++ {
		id := fmt.Sprintf("shard-%d", i)
		p, err := cluster.PrimaryOf(ctx, redisstore.ZSetKey(id, board.Period{Kind: board.AllTime}))
		if err != nil {
			t.Fatal(err)
		}
		if byPrimary[p] == nil {
			byPrimary[p] = a.board(board.Board{ID: id, Title: "Shard " + id, TieBreak: board.ByMember}, "ann", 50, "bob", 40, "cat", 30)
		}
	}
	pages := map[string]playwright.Page{}
	for _, p := range primaries {
		b := byPrimary[p]
		page := newPage(t)
		open(t, page, a.URL+"/b/"+b.ID, 200)
		waitLive(t, page)
		must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"ann", "bob", "cat"}))
		pages[p] = page
	}
	for _, p := range primaries {
		b := byPrimary[p]
		if err := cc.ZIncrBy(ctx, redisstore.ZSetKey(b.ID, b.Current(board.AllTime, testNow)), 25, "cat").Err(); err != nil {
			t.Fatal(err)
		}
		page := pages[p]
		must(t, expect.Locator(page.GetByTestId("name")).ToHaveText([]string{"cat", "ann", "bob"}))
		must(t, expect.Locator(page.Locator(`tr[data-member="cat"]`).GetByTestId("score")).ToHaveText("55"))
		t.Logf("%s on %s: live", b.ID, p)
	}
}
