package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
)

// segmentCases are TestOpenAPIResponses' requests about segments, on a
// board "geo" whose attribute club already has its 1,000 values.
func segmentCases(t *testing.T, f *webtest.Server, all, chessOnly string) []apiCase {
	t.Helper()
	f.Board(board.Board{ID: "geo", Title: "Geo", Segments: []string{"country", "club"}, Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	subs := make([]board.Submission, board.MaxSegmentValues)
	for i := range subs {
		subs[i] = board.Submission{Member: fmt.Sprintf("m%d", i), Score: float64(i % 7), Segments: map[string]string{"club": fmt.Sprintf("c%d", i), "country": []string{"NO", "SE"}[i%2]}}
	}
	if _, err := f.Store.SubmitBatch(context.Background(), "geo", subs, board.BatchOptions{By: board.Author{Actor: "test"}}); err != nil {
		t.Fatal(err)
	}
	return []apiCase{
		{"submit with segments", "POST", "/boards/geo/scores", all, `{"member":"ann","score":3,"segments":{"country":"NO","club":"c1"}}`, nil, 200},
		{"submit after a contest closed", "POST", "/boards/ended/scores", all, `{"member":"ann","score":3}`, nil, 409},
		{"a contest closing before it opens", "PUT", "/boards/ended", all, `{"title":"Ended","opens_at":"2026-02-01T00:00:00Z","closes_at":"2026-01-01T00:00:00Z"}`, nil, 422},
		{"submit past an attribute's values", "POST", "/boards/geo/scores", all, `{"member":"ann","score":3,"segments":{"club":"new"}}`, nil, 409},
		{"submit to an unknown attribute", "POST", "/boards/geo/scores", all, `{"member":"ann","score":3,"segments":{"planet":"Mars"}}`, nil, 422},
		{"entries of a segment", "GET", "/boards/geo/entries?period=week&segment=country:NO&limit=5", "", "", nil, 200},
		{"entries of a bad segment", "GET", "/boards/geo/entries?segment=planet:Mars", "", "", nil, 400},
		{"around within a segment", "GET", "/boards/geo/members/m0/around?segment=country:NO&radius=2", "", "", nil, 200},
		{"around outside its segment", "GET", "/boards/geo/members/m0/around?segment=country:SE", "", "", nil, 404},
		{"member with segments", "GET", "/boards/geo/members/ann", "", "", nil, 200},
		{"segments move", "PUT", "/boards/geo/members/ann/segments", all, `{"segments":{"country":"SE","club":""},"reason":"moved"}`, nil, 200},
		{"segments malformed", "PUT", "/boards/geo/members/ann/segments", all, `{"segments":`, nil, 400},
		{"segments without key", "PUT", "/boards/geo/members/ann/segments", "", `{"segments":{"country":"SE"}}`, nil, 401},
		{"segments with another board's key", "PUT", "/boards/geo/members/ann/segments", chessOnly, `{"segments":{"country":"SE"}}`, nil, 403},
		{"segments on an unknown board", "PUT", "/boards/nope/members/ann/segments", all, `{"segments":{"country":"SE"}}`, nil, 404},
		{"segments past an attribute's values", "PUT", "/boards/geo/members/ann/segments", all, `{"segments":{"club":"new"}}`, nil, 409},
		{"segments too big", "PUT", "/boards/geo/members/ann/segments", all, `{"segments":{"country":"` + strings.Repeat("x", 1_100_000) + `"}}`, nil, 413},
		{"segments left out", "PUT", "/boards/geo/members/ann/segments", all, `{}`, nil, 422},
		{"segments of an unknown attribute", "PUT", "/boards/geo/members/ann/segments", all, `{"segments":{"planet":"Mars"}}`, nil, 422},
	}
}
