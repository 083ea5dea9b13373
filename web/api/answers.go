package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"podium/board"
	"podium/hooks"
	"podium/rows"

	"github.com/labstack/echo/v4"
)

// The API's answers, one type per schema of the OpenAPI document (openapi.json):
// pageJSON is Page, teamRowJSON is TeamRow, and so on. Handlers fill one in
// and send it as it is; nothing is added afterwards.
//
// The fields of the top-level answers are in alphabetical order of their
// JSON names: that is the order the API has always sent them in (they were
// marshalled maps), and clients that keep answers as bytes see no change.
// Scores are json.Number holding exact decimal text (board.Format.Number):
// 90071992547409.01 stays 90071992547409.01.

// boardsJSON is the list of boards (listBoards).
type boardsJSON struct {
	Boards []board.Spec `json:"boards"`
}

// periodJSON is a period: its kind, key and title, and for calendar periods
// its start and end.
type periodJSON struct {
	Kind  string     `json:"kind"`
	Key   string     `json:"key,omitempty"`
	Title string     `json:"title"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

func toPeriodJSON(p board.Period) periodJSON {
	j := periodJSON{Kind: string(p.Kind), Key: p.Key, Title: p.Title()}
	if p.Kind.Calendar() {
		j.Start, j.End = &p.Start, &p.End
	}
	return j
}

// entryJSON is one row of a page.
type entryJSON struct {
	Rank   int         `json:"rank"`
	Member string      `json:"member"`
	Name   string      `json:"name"`
	Score  json.Number `json:"score"`
	Shown  string      `json:"score_text"`
	Fields []int64     `json:"fields,omitempty"`
	Tied   bool        `json:"tied,omitempty"`
	// GlobalRank is, in a page filtered to a segment, the member's rank
	// on the whole period (Rank is its rank within the segment).
	GlobalRank *int `json:"global_rank,omitempty"`
}

func entriesJSON(b *board.Board, es []board.Entry) []entryJSON {
	out := make([]entryJSON, len(es))
	for i, r := range rows.Of(b, es) {
		out[i] = entryJSON{Rank: r.Rank, Member: r.Member, Name: r.Name, Score: json.Number(b.Format.Number(es[i].Score)), Shown: r.Score, Fields: es[i].Fields, Tied: r.Tied}
	}
	return out
}

// The reads of a board's standings (pageJSON, aroundJSON, memberJSON,
// teamsJSON, teamJSON) carry FrozenSince while the board is frozen: they
// show its standings as they stood at that instant. It is absent when the
// standings are live.

// pageJSON is a page of a period's standings (listEntries).
type pageJSON struct {
	Board       string      `json:"board"`
	Entries     []entryJSON `json:"entries"`
	FrozenSince *time.Time  `json:"frozen_since,omitempty"`
	Next        string      `json:"next,omitempty"`
	Offset      int         `json:"offset"`
	Period      periodJSON  `json:"period"`
	// Segment is the filter of a page of one segment: its ranks and total
	// are among the segment's members.
	Segment *segmentJSON `json:"segment,omitempty"`
	Total   int          `json:"total"`
}

// aroundJSON is the members around one member (getAround).
type aroundJSON struct {
	Board       string       `json:"board"`
	Entries     []entryJSON  `json:"entries"`
	FrozenSince *time.Time   `json:"frozen_since,omitempty"`
	Member      string       `json:"member"`
	Offset      int          `json:"offset"`
	Period      periodJSON   `json:"period"`
	Position    int          `json:"position"`
	Segment     *segmentJSON `json:"segment,omitempty"`
	Total       int          `json:"total"`
}

// memberJSON is a member's standing in every period (getMember).
type memberJSON struct {
	Member  string         `json:"member"`
	Name    string         `json:"name"`
	Periods []standingJSON `json:"periods"`
	// Segments are the member's values of the board's attributes.
	Segments    map[string]string `json:"segments,omitempty"`
	FrozenSince *time.Time        `json:"frozen_since,omitempty"`
}

// standingJSON is a member's standing in one period; an unranked member has
// neither rank, score nor percentile.
type standingJSON struct {
	Period     periodJSON  `json:"period"`
	Ranked     bool        `json:"ranked"`
	Rank       int         `json:"rank,omitempty"`
	Score      json.Number `json:"score,omitempty"`
	Total      int         `json:"total"`
	Percentile *float64    `json:"percentile,omitempty"`
	// SegmentRanks are its ranks within each of its segments.
	SegmentRanks []segmentRankJSON `json:"segment_ranks,omitempty"`
}

// teamsJSON is a page of a period's team standing (getTeams).
type teamsJSON struct {
	Board       string        `json:"board"`
	FrozenSince *time.Time    `json:"frozen_since,omitempty"`
	Offset      int           `json:"offset"`
	Period      periodJSON    `json:"period"`
	Teams       []teamRowJSON `json:"teams"`
	TeamsBy     string        `json:"teams_by"`
	Total       int           `json:"total"`
}

// teamRowJSON is one row of a team standing.
type teamRowJSON struct {
	Rank    int         `json:"rank"`
	Team    string      `json:"team"`
	Members int         `json:"members"`
	Score   json.Number `json:"score"`
	Shown   string      `json:"score_text"`
	Tied    bool        `json:"tied,omitempty"`
}

// teamJSON is one team in a period with its members (getTeam).
type teamJSON struct {
	Board       string           `json:"board"`
	FrozenSince *time.Time       `json:"frozen_since,omitempty"`
	Members     []teamMemberJSON `json:"members"`
	Period      periodJSON       `json:"period"`
	Team        string           `json:"team"`
}

// teamMemberJSON is a team's member with its rank on the board, if ranked.
type teamMemberJSON struct {
	Member string      `json:"member"`
	Name   string      `json:"name"`
	Ranked bool        `json:"ranked"`
	Rank   int         `json:"rank,omitempty"`
	Score  json.Number `json:"score,omitempty"`
	Shown  string      `json:"score_text,omitempty"`
}

// teamChangeJSON is a member's move between teams (setTeam): the team it is
// in now and the one it left ("" for none).
type teamChangeJSON struct {
	Changed bool   `json:"changed"`
	Left    string `json:"left"`
	Member  string `json:"member"`
	Team    string `json:"team"`
}

// submitResultJSON is the answer to one submission; batchResultJSON to a
// batch, one result per item (submitScores).
type submitResultJSON struct {
	Result resultJSON `json:"result"`
}

type batchResultJSON struct {
	Results []resultJSON `json:"results"`
}

// resultJSON is what one submission did, in every period it changed.
type resultJSON struct {
	Member   string `json:"member"`
	Replayed bool   `json:"replayed,omitempty"`
	// Held: the write broke the board's fair-play rule Rule and waits in
	// its review queue, unapplied (Periods is empty) until approved.
	Held    bool         `json:"held,omitempty"`
	Rule    string       `json:"rule,omitempty"`
	Periods []changeJSON `json:"periods"`
}

// changeJSON is one period's place before and after; null where unranked.
type changeJSON struct {
	Period periodJSON `json:"period"`
	Before *placeJSON `json:"before"`
	After  *placeJSON `json:"after"`
}

type placeJSON struct {
	Score json.Number `json:"score"`
	Rank  int         `json:"rank,omitempty"`
}

func placeOf(b *board.Board, p board.Place) *placeJSON {
	if !p.Ranked {
		return nil
	}
	return &placeJSON{Score: json.Number(b.Format.Number(p.Score)), Rank: p.Rank}
}

func toResultJSON(b *board.Board, r board.Result) resultJSON {
	out := resultJSON{Member: r.Member, Replayed: r.Replayed, Held: r.Held, Rule: r.Rule, Periods: []changeJSON{}}
	for _, c := range r.Changes {
		out.Periods = append(out.Periods, changeJSON{Period: toPeriodJSON(c.Period), Before: placeOf(b, c.Before), After: placeOf(b, c.After)})
	}
	return out
}

// removedJSON is a member's removal (removeMember): each period it left,
// with the score it had there.
type removedJSON struct {
	Member  string              `json:"member"`
	Removed []removedPeriodJSON `json:"removed"`
}

type removedPeriodJSON struct {
	Period periodJSON  `json:"period"`
	Score  json.Number `json:"score"`
}

// freezeJSON is a board's freeze (freezeBoard, unfreezeBoard).
type freezeJSON struct {
	Board string `json:"board"`
	// Frozen: public reads show the standings of FreezeAt now.
	Frozen bool `json:"frozen"`
	// FreezeAt is when the freeze began, or begins; absent when there is none.
	FreezeAt *time.Time `json:"freeze_at,omitempty"`
	// RevealAt is when the freeze lifts on its own; absent: by hand only.
	RevealAt *time.Time `json:"reveal_at,omitempty"`
}

// hooksJSON is a board's webhooks (listHooks).
type hooksJSON struct {
	Board string     `json:"board"`
	Hooks []hookJSON `json:"hooks"`
}

// hookJSON is a webhook as the API shows it: never its secret, but once, in
// the answer that made (or rotated) it.
type hookJSON struct {
	ID         string          `json:"id"`
	URL        string          `json:"url"`
	Events     []hooks.Event   `json:"events"`
	Periods    []board.Kind    `json:"periods"`      // those ticked; none when it follows every period
	AllPeriods bool            `json:"every_period"` // every period the board keeps, including those it adds later
	Top        int             `json:"top"`
	Enabled    bool            `json:"enabled"`
	Created    time.Time       `json:"created"`
	Secret     string          `json:"secret,omitempty"`
	Deliveries []hooks.Attempt `json:"deliveries,omitempty"`
}

func toHookJSON(h hooks.Hook) hookJSON {
	ps := h.Periods
	if ps == nil {
		ps = []board.Kind{}
	}
	return hookJSON{ID: h.ID, URL: h.URL, Events: h.Events, Periods: ps, AllPeriods: h.AllPeriods(), Top: h.Top, Enabled: h.Enabled, Created: h.CreatedAt()}
}

// hookTestJSON is the test event queued for a webhook (testHook).
type hookTestJSON struct {
	Event string `json:"event"`
	Hook  string `json:"hook"`
}

// errorJSON is every error answer: {"error": {"code", "message", "field"}}.
type errorJSON struct {
	Error *apiError `json:"error"`
}

// answerOnce answers 200 with the JSON of answer(), as c.JSON does. When
// the reader sees the read whole (no privacy mode's masks) the encoding is
// kept in the read's memo: every reader of the same cached answer gets
// the same bytes, encoded once. An answer must then depend only on what
// the read cache keys the read by (board, its version and freeze, period,
// window, member) and on frozen, the instant the board froze (nil when
// live), which is part of the memo's key: a freeze that begins between the
// cache's read and the encoding does not leave its mark on the live key.
func answerOnce(c echo.Context, memo *board.Memo, whole bool, frozen *time.Time, answer func() any) error {
	if _, pretty := c.QueryParams()["pretty"]; pretty || !whole || memo == nil {
		return c.JSON(http.StatusOK, answer())
	}
	key := "api"
	if frozen != nil {
		key = "api@" + strconv.FormatInt(frozen.UnixMicro(), 10)
	}
	body, err := memo.Of(key, func() ([]byte, error) {
		var buf bytes.Buffer
		err := json.NewEncoder(&buf).Encode(answer())
		return buf.Bytes(), err
	})
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, body)
}
