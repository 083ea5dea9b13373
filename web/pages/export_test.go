package pages_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"podium/board"
	"podium/internal/webtest"
	"podium/web"
)

// TestExport: a period downloads whole as CSV and as JSON from the board
// page's links and from the API; names a spreadsheet would run as formulas
// are quoted; a bad format is a 400.
func TestExport(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "sales", Title: "Sales", Format: board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"}, Periods: []board.Kind{board.AllTime}},
		map[string]float64{"ann": 123456, "bob": 500, "cat": 500})
	if _, err := f.Store.SetName(t.Context(), "sales", "bob", "=HYPERLINK(\"http://evil\")", board.Author{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	res, page := f.Get("/b/sales")
	if res.StatusCode != 200 || !strings.Contains(page, `data-testid="export-csv"`) || !strings.Contains(page, "/b/sales/export?") {
		t.Fatalf("board page: %d, no download links", res.StatusCode)
	}
	res, body := f.Get("/b/sales/export?period=all&format=csv")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		res.Header.Get("Content-Disposition") != `attachment; filename="sales-all.csv"` {
		t.Fatalf("csv: %d %v", res.StatusCode, res.Header)
	}
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"rank", "member", "name", "score", "raw_score"},
		{"1", "ann", "ann", "$1,234.56", "1234.56"},
		{"2", "bob", "'=HYPERLINK(\"http://evil\")", "$5.00", "5"},
		{"2", "cat", "cat", "$5.00", "5"},
	}
	if len(recs) != len(want) {
		t.Fatalf("csv rows %q", recs)
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Fatalf("csv row %d: %q, want %q", i, recs[i], want[i])
		}
	}
	res, body = apiGet(t, f.URL+"/api/v1/boards/sales/export?period=all&format=json")
	var doc struct {
		Board   string `json:"board"`
		Period  string `json:"period"`
		Entries []struct {
			Rank   int             `json:"rank"`
			Member string          `json:"member"`
			Score  string          `json:"score"`
			Raw    json.RawMessage `json:"raw_score"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || res.StatusCode != 200 || doc.Board != "sales" || doc.Period != "all" || len(doc.Entries) != 3 ||
		string(doc.Entries[0].Raw) != "1234.56" || doc.Entries[2].Rank != 2 {
		t.Fatalf("json: %d %v %s", res.StatusCode, err, body)
	}
	if res, _ := f.Get("/b/sales/export?period=all&format=xml"); res.StatusCode != 400 {
		t.Fatalf("format xml: %d", res.StatusCode)
	}
	if res, body := apiGet(t, f.URL+"/api/v1/boards/sales/export?period=all&format=xml"); res.StatusCode != 400 || !strings.Contains(body, `"field":"format"`) {
		t.Fatalf("api format xml: %d %s", res.StatusCode, body)
	}
	// An empty period is a header alone.
	f.Board(board.Board{ID: "empty", Title: "Empty", Periods: []board.Kind{board.AllTime}}, nil)
	if res, body := f.Get("/b/empty/export?period=all"); res.StatusCode != 200 || strings.TrimSpace(body) != "rank,member,name,score,raw_score" {
		t.Fatalf("empty: %d %q", res.StatusCode, body)
	}
}

func apiGet(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// brokenExporter hands over a few pages and then fails, as Redis going away
// in the middle of a download would.
type brokenExporter struct{}

func (brokenExporter) EachIn(_ context.Context, _ *board.Board, _ board.Period, _ board.Segment, fn func([]board.Entry) error) error {
	for i := range 5 {
		page := make([]board.Entry, 1000)
		for j := range page {
			page[j] = board.Entry{Rank: i*1000 + j + 1, Member: fmt.Sprintf("member-%06d", i*1000+j), Name: "A name long enough to fill the buffer", Score: 1}
		}
		if err := fn(page); err != nil {
			return err
		}
	}
	return errors.New("redis went away")
}

// TestExportBrokenMidway: a download that fails after it began is broken for
// the client, never a short file that looks whole.
func TestExportBrokenMidway(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "big", Title: "Big", Periods: []board.Kind{board.AllTime}}, nil)
	h := httptest.NewServer(web.New(web.Options{Store: f.Store, Export: brokenExporter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer h.Close()
	for _, enc := range []string{"", "gzip"} {
		req, _ := http.NewRequest(http.MethodGet, h.URL+"/b/big/export?period=all", nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || err == nil {
			t.Fatalf("%s: status %d, read error %v: the broken download looked whole", enc, res.StatusCode, err)
		}
	}
}
