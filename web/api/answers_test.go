package api

import (
	"encoding/json"
	"testing"
	"time"

	"podium/board"
	"podium/hooks"
)

// TestAnswersKeepTheirShape: every answer type marshals to exactly the bytes
// the API has sent since its answers were maps: keys in the same order,
// optional fields absent (not null) when unset, places null when unranked,
// lists [] when empty.
func TestAnswersKeepTheirShape(t *testing.T) {
	at := time.Date(2027, 1, 6, 13, 0, 0, 0, time.UTC)
	all := periodJSON{Kind: "all", Title: "All time"}
	week := periodJSON{Kind: "week", Key: "2027-W01", Title: "Week 1", Start: &at, End: &at}
	entry := entryJSON{Rank: 3, Member: "bob", Name: "bob", Score: "7", Shown: "7", Tied: true}
	pct := 100.0
	result := resultJSON{Member: "ann", Periods: []changeJSON{{Period: all, After: &placeJSON{Score: "12", Rank: 1}}}}
	tests := []struct {
		name   string
		answer any
		want   string
	}{
		{"boards", boardsJSON{Boards: []board.Spec{}}, `{"boards":[]}`},
		{"page", pageJSON{Board: "chess", Entries: []entryJSON{entry}, Period: all, Total: 7},
			`{"board":"chess","entries":[{"rank":3,"member":"bob","name":"bob","score":7,"score_text":"7","tied":true}],"offset":0,"period":{"kind":"all","title":"All time"},"total":7}`},
		{"frozen page", pageJSON{Board: "chess", Entries: []entryJSON{}, FrozenSince: &at, Offset: 50, Period: week, Total: 7},
			`{"board":"chess","entries":[],"frozen_since":"2027-01-06T13:00:00Z","offset":50,"period":{"kind":"week","key":"2027-W01","title":"Week 1","start":"2027-01-06T13:00:00Z","end":"2027-01-06T13:00:00Z"},"total":7}`},
		{"around", aroundJSON{Board: "chess", Entries: []entryJSON{}, FrozenSince: &at, Member: "ann", Period: all, Position: 2, Offset: 1, Total: 7},
			`{"board":"chess","entries":[],"frozen_since":"2027-01-06T13:00:00Z","member":"ann","offset":1,"period":{"kind":"all","title":"All time"},"position":2,"total":7}`},
		{"member", memberJSON{Member: "ann", Name: "Ann", Periods: []standingJSON{{Period: all, Ranked: true, Rank: 1, Score: "11", Total: 7, Percentile: &pct}, {Period: all, Total: 7}}},
			`{"member":"ann","name":"Ann","periods":[{"period":{"kind":"all","title":"All time"},"ranked":true,"rank":1,"score":11,"total":7,"percentile":100},{"period":{"kind":"all","title":"All time"},"ranked":false,"total":7}]}`},
		{"frozen member", memberJSON{Member: "ann", Name: "ann", FrozenSince: &at},
			`{"member":"ann","name":"ann","periods":null,"frozen_since":"2027-01-06T13:00:00Z"}`},
		{"teams", teamsJSON{Board: "league", Period: all, Teams: []teamRowJSON{{Rank: 1, Team: "red", Members: 2, Score: "6", Shown: "6"}}, TeamsBy: "sum", Total: 2},
			`{"board":"league","offset":0,"period":{"kind":"all","title":"All time"},"teams":[{"rank":1,"team":"red","members":2,"score":6,"score_text":"6"}],"teams_by":"sum","total":2}`},
		{"team", teamJSON{Board: "cup", FrozenSince: &at, Members: []teamMemberJSON{{Member: "ann", Name: "ann", Ranked: true, Rank: 1, Score: "3", Shown: "3"}, {Member: "cat", Name: "cat"}}, Period: all, Team: "red"},
			`{"board":"cup","frozen_since":"2027-01-06T13:00:00Z","members":[{"member":"ann","name":"ann","ranked":true,"rank":1,"score":3,"score_text":"3"},{"member":"cat","name":"cat","ranked":false}],"period":{"kind":"all","title":"All time"},"team":"red"}`},
		{"team change", teamChangeJSON{Changed: true, Left: "blue", Member: "cat"}, `{"changed":true,"left":"blue","member":"cat","team":""}`},
		{"submit", submitResultJSON{Result: result},
			`{"result":{"member":"ann","periods":[{"period":{"kind":"all","title":"All time"},"before":null,"after":{"score":12,"rank":1}}]}}`},
		{"replayed without changes", submitResultJSON{Result: resultJSON{Member: "ann", Replayed: true}}, `{"result":{"member":"ann","replayed":true,"periods":null}}`},
		{"batch", batchResultJSON{Results: []resultJSON{{Member: "ann", Periods: []changeJSON{{Period: all, Before: &placeJSON{Score: "1"}, After: &placeJSON{Score: "2"}}}}}},
			`{"results":[{"member":"ann","periods":[{"period":{"kind":"all","title":"All time"},"before":{"score":1},"after":{"score":2}}]}]}`},
		{"removed", removedJSON{Member: "bob", Removed: []removedPeriodJSON{{Period: all, Score: "7"}}},
			`{"member":"bob","removed":[{"period":{"kind":"all","title":"All time"},"score":7}]}`},
		{"freeze", freezeJSON{Board: "chess"}, `{"board":"chess","frozen":false}`},
		{"freeze to come", freezeJSON{Board: "chess", FreezeAt: &at}, `{"board":"chess","frozen":false,"freeze_at":"2027-01-06T13:00:00Z"}`},
		{"hooks", hooksJSON{Board: "chess", Hooks: []hookJSON{toHookJSON(hooks.Hook{ID: "wh_1", URL: "https://example.com/h", Events: []hooks.Event{hooks.NewLeader}, Top: 3, Enabled: true})}},
			`{"board":"chess","hooks":[{"id":"wh_1","url":"https://example.com/h","events":["leader.changed"],"periods":[],"every_period":true,"top":3,"enabled":true,"created":"1970-01-01T00:00:00Z"}]}`},
		{"hook test", hookTestJSON{Event: "chess-1", Hook: "wh_1"}, `{"event":"chess-1","hook":"wh_1"}`},
		{"error", errorJSON{Error: apiErr(404, "not_found", "no such board")}, `{"error":{"code":"not_found","message":"no such board"}}`},
		{"error with fields", errorJSON{Error: &apiError{Status: 422, Code: "invalid", Message: "m", Field: "f", Fields: []fieldIssue{{Field: "f", Message: "m"}}}},
			`{"error":{"code":"invalid","message":"m","field":"f","fields":[{"field":"f","message":"m"}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.answer)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("\ngot  %s\nwant %s", got, tc.want)
			}
		})
	}
}
