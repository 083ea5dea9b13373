package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// TestSearchOfATopOnlyBoard: on a board that shows only its top two (names
// whole), a search finds the places shown whose names start with the
// words, however many hidden members' names start with them too, and
// answers a search that only hidden members match as one nobody matches.
func TestSearchOfATopOnlyBoard(t *testing.T) {
	f := webtest.New(t)
	scores := map[string]float64{"ab-top": 1000, "zz-second": 900}
	for i := range 60 { // more hidden matches than a search returns, before the top's name
		scores[fmt.Sprintf("aa-%02d", i)] = float64(i + 1)
	}
	f.Board(board.Board{ID: "ladder", Title: "Ladder", TopOnly: 2}, scores)
	res, body := f.Get("/b/ladder?q=a")
	if res.StatusCode != http.StatusOK || strings.Count(body, `data-testid="row"`) != 1 || !strings.Contains(body, "ab-top") {
		t.Errorf("a search for the top's name: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if strings.Contains(body, "aa-") {
		t.Errorf("a search shows a hidden member: %s", webtest.Excerpt(body))
	}
	_, hiddenOnly := f.Get("/b/ladder?q=aa-1")
	_, nobody := f.Get("/b/ladder?q=qq-1")
	if strings.ReplaceAll(hiddenOnly, "aa-1", "qq-1") != nobody {
		t.Errorf("a search only hidden members match differs from one nobody matches:\n%s\n%s", webtest.Excerpt(hiddenOnly), webtest.Excerpt(nobody))
	}
}
