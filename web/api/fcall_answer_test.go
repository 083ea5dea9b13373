package api_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// TestFunctionAnswersAsTheAPI: FCALL podium_submit answers with the API's
// JSON for the same submission (member, replayed, periods with before and
// after, exact scores in the board's unit), except that a period is named by
// kind and key only: Lua in Redis knows no time zones, so no title, start or
// end. Twin boards, one written through the API and one through FCALL.
func TestFunctionAnswersAsTheAPI(t *testing.T) {
	f := webtest.New(t, webtest.Clock(time.Now), webtest.Limits(10_000, 10_000))
	ctx := context.Background()
	if err := f.Store.LoadFunctions(ctx); err != nil {
		t.Fatal(err)
	}
	rdb := webtest.Redis(t)
	key := f.Key("game", "")
	for _, def := range []board.Board{
		{Title: "Points", Periods: []board.Kind{board.Daily, board.Weekly, board.AllTime, board.Last7d}},
		{Title: "Cents", Format: board.Format{Type: board.Decimal, Decimals: 2}, Periods: []board.Kind{board.Monthly, board.AllTime}, RankStyle: board.Dense},
		{Title: "Times", Format: board.Format{Type: board.Duration}, Order: board.LowerIsBetter, Periods: []board.Kind{board.Yearly, board.AllTime}},
	} {
		t.Run(def.Title, func(t *testing.T) {
			api, fc := def, def
			api.ID, fc.ID = "api-"+string(def.Format.Type), "fcall-"+string(def.Format.Type)
			f.Board(api, nil)
			f.Board(fc, nil)
			for i, w := range []struct {
				member, op, score, idem string
			}{
				{"ann", "set", "12", ""},
				{"bob", "incr", "9007199254740.99", ""}, // exact at 2^53 units on the cents board
				{"ann", "incr", "3", "k-1"},
				{"ann", "incr", "3", "k-1"}, // a retry: replayed
				{"cat", "best", "15", ""},
				{"bob", "decr", "1", ""},
			} {
				if def.Format.Type != board.Decimal && w.member == "bob" && i == 1 {
					w.score = "9007199254740"
				}
				body := `{"member":"` + w.member + `","op":"` + w.op + `","score":` + w.score
				if w.idem != "" {
					body += `,"idempotency_key":"` + w.idem + `"`
				}
				status, raw := f.RawCall("POST", "/api/v1/boards/"+api.ID+"/scores", key, strings.NewReader(body+"}"))
				if status != 200 {
					t.Fatalf("API %s: %d %s", body, status, raw)
				}
				u, err := def.Format.ParseScore(w.score, false)
				if err != nil {
					t.Fatal(err)
				}
				score := strconv.FormatFloat(u, 'f', -1, 64)
				got, err := rdb.FCall(ctx, "podium_submit", []string{"lb:{" + fc.ID + "}:def"}, w.member, w.op, score, "", w.idem).Text()
				if err != nil {
					t.Fatalf("FCALL %v: %v", w, err)
				}
				want := withoutPeriodNames(t, raw)
				if !reflect.DeepEqual(decodeAny(t, got), want) {
					t.Errorf("%s %s %s:\nFCALL %s\nAPI   %s", w.member, w.op, w.score, got, raw)
				}
			}
		})
	}
}

// withoutPeriodNames is an API answer without what FCALL cannot say of a
// period: its title, start and end.
func withoutPeriodNames(t *testing.T, raw string) any {
	t.Helper()
	v := decodeAny(t, raw).(map[string]any)
	for _, c := range v["result"].(map[string]any)["periods"].([]any) {
		p := c.(map[string]any)["period"].(map[string]any)
		delete(p, "title")
		delete(p, "start")
		delete(p, "end")
	}
	return v
}

func decodeAny(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %s", s)
	}
	return v
}
