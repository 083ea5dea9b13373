package api_test

import (
	"context"
	"net/http"
	"testing"

	"podium/board"
	"podium/internal/webtest"
	"podium/web/api/client"
)

// TestGeneratedGoClient: the Go client generated from the API document
// (web/api/client, by the pinned oapi-codegen: make generate) writes and reads
// a real server, so the document stays one that generators take.
func TestGeneratedGoClient(t *testing.T) {
	f := webtest.New(t, webtest.Limits(10_000, 10_000))
	f.Board(board.Board{ID: "cents", Title: "Cents", Format: board.Format{Type: board.Decimal, Decimals: 2}}, nil)
	key := f.Key("game", "")
	ctx := context.Background()
	c, err := client.NewClientWithResponses(f.URL+"/api/v1", client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}

	// A write: one score, exact to the cent at 2^53 cents.
	var body client.Submit
	if err := body.FromSubmission(client.Submission{Member: "ann", Score: 90071992547409.91}); err != nil {
		t.Fatal(err)
	}
	res, err := c.SubmitScoresWithResponse(ctx, "cents", nil, body)
	if err != nil || res.JSON200 == nil {
		t.Fatalf("submit: %v %d %s", err, res.StatusCode(), res.Body)
	}
	sr, err := res.JSON200.AsSubmitResult()
	if err != nil || sr.Result.Member != "ann" || len(sr.Result.Periods) != 1 || sr.Result.Periods[0].After == nil || sr.Result.Periods[0].After.Score != 90071992547409.91 {
		t.Fatalf("submit result: %+v %v (%s)", sr, err, res.Body)
	}

	// A read: the entries, with the same score and a rank.
	limit := 10
	page, err := c.ListEntriesWithResponse(ctx, "cents", &client.ListEntriesParams{Limit: &limit})
	if err != nil || page.JSON200 == nil {
		t.Fatalf("entries: %v %d %s", err, page.StatusCode(), page.Body)
	}
	if es := page.JSON200.Entries; len(es) != 1 || es[0].Member != "ann" || es[0].Rank != 1 || es[0].Score != 90071992547409.91 {
		t.Fatalf("entries: %+v", es)
	}

	// A documented error comes back as its type.
	missing, err := c.GetMemberWithResponse(ctx, "cents", "nobody")
	if err != nil || missing.JSON404 == nil || missing.JSON404.Error.Code != "member_not_found" {
		t.Fatalf("unknown member: %v %d %s", err, missing.StatusCode(), missing.Body)
	}
}
