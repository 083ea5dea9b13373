package pages_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

func TestTiedRanksAndPeriodLinks(t *testing.T) {
	f := webtest.New(t)
	b := f.Board(board.Board{ID: "golf", Title: "Golf", Order: board.LowerIsBetter, RankStyle: board.Competition, Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly},
		map[string]float64{"ann": 70, "bob": 68, "cat": 70, "dan": 75})
	_, body := f.Get("/b/golf")
	ranks := regexp.MustCompile(`data-member="([^"]+)" data-rank="(\d+)"`).FindAllStringSubmatch(body, -1)
	got := map[string]string{}
	for _, m := range ranks {
		got[m[1]] = m[2]
	}
	if !reflect.DeepEqual(got, map[string]string{"bob": "1", "ann": "2", "cat": "2", "dan": "4"}) || ranks[0][1] != "bob" || ranks[3][1] != "dan" {
		t.Fatalf("ranks %v", ranks)
	}
	if !strings.Contains(body, `href="/b/golf?at=2026-W53&amp;period=week"`) {
		t.Fatalf("previous week link missing:\n%s", webtest.Excerpt(body))
	}
	if strings.Contains(body, `rel="next"`) && strings.Contains(body, "2027-W02") {
		t.Fatal("links to a future week")
	}
	_ = b
}
