package api

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/hooks"
	"podium/memberdata"
)

// TestOpenAPIMatchesRoutes: every API route is documented with its method,
// and every documented operation is a route.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	e := echo.New()
	New(Options{Export: exportNothing{}, Hooks: hooks.NewRegistry(nil, nil), Members: noMembers{}}).Routes(e) // every optional route on
	var routes []string
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/") || strings.HasSuffix(r.Path, "/*") || r.Method == "HEAD" { // HEAD mirrors each GET
			continue
		}
		path := regexp.MustCompile(`:(\w+)`).ReplaceAllString(strings.TrimPrefix(r.Path, "/api/v1"), "{$1}")
		routes = append(routes, r.Method+" "+path)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method != "parameters" {
				documented = append(documented, strings.ToUpper(method)+" "+path)
			}
		}
	}
	sort.Strings(routes)
	sort.Strings(documented)
	if !slices.Equal(slices.Compact(routes), documented) {
		t.Fatalf("routes and document differ:\nroutes     %v\ndocumented %v", routes, documented)
	}
}

// FuzzDecodeScores: whatever arrives, decoding never panics, and what it
// accepts has a score for every item and at most MaxBatch items.
func FuzzDecodeScores(f *testing.F) {
	for _, s := range []string{`{"member":"a","score":1}`, `{"scores":[{"member":"a","score":1,"op":"set"}]}`, `{"member":"a"}`, `{"scores":[]}`, `[]`, `{"score":1e999}`, `{"member":"a","score":1,"fields":[1,2]}`, `{"scores":[{"member":"a","score":1}],"ranks":false}`, `{"member":"a","score":1,"ranks":true}`, ``} {
		f.Add(s, "")
		f.Add(s, "key-1")
	}
	f.Fuzz(func(t *testing.T, body, header string) {
		fm := board.Format{Type: board.Decimal, Decimals: 3}
		req, err := decodeScores(bytes.NewBufferString(body), header, fm)
		subs := req.subs
		if err != nil {
			if apiErrorOf(err) == nil {
				t.Fatalf("error %v has no API status", err)
			}
			return
		}
		if len(subs) == 0 || len(subs) > board.MaxBatch {
			t.Fatalf("%d submissions accepted", len(subs))
		}
		for _, sub := range subs {
			if sub.Score != math.Trunc(sub.Score) || math.Abs(sub.Score) > board.MaxExact {
				t.Fatalf("score %v units accepted", sub.Score)
			}
		}
		if !req.batch && (len(subs) != 1 || req.opt != (board.BatchOptions{})) {
			t.Fatalf("single submission decoded as %d items, options %+v", len(subs), req.opt)
		}
	})
}

type exportNothing struct{}

func (exportNothing) EachIn(context.Context, *board.Board, board.Period, board.Segment, func([]board.Entry) error) error {
	return nil
}

// TestOpenAPIDeliveryErrors: the document lists every word a delivery's
// error may hold, and nothing else.
func TestOpenAPIDeliveryErrors(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	var delivery struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Components.Schemas["Delivery"], &delivery); err != nil {
		t.Fatal(err)
	}
	got := delivery.Properties["error"].Enum
	if len(got) == 0 || !slices.Equal(got, hooks.Failures) {
		t.Fatalf("Delivery.error lists %q, the runner writes %q", got, hooks.Failures)
	}
}

// noMembers is a Members that holds nothing, for route listings.
type noMembers struct{}

func (noMembers) Data(context.Context, *board.Board, string) (memberdata.Data, error) {
	return memberdata.Data{}, memberdata.ErrNoMember
}

func (noMembers) Erase(context.Context, *board.Board, string, board.EraseMode, board.Author) (board.Erased, error) {
	return board.Erased{}, memberdata.ErrNoMember
}
