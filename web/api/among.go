package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/request"
)

// Ranks among a list of members: friends, a class, any set a client names
// (POST /ranks, or GET with repeated member= for short lists), and the
// friends a board keeps for a member (…/members/{m}/friends).

// listedJSON is one listed member's standing: the global rank and the rank
// within the list; an unranked member has neither, nor a score.
type listedJSON struct {
	Member   string      `json:"member"`
	Name     string      `json:"name"`
	Ranked   bool        `json:"ranked"`
	ListRank int         `json:"list_rank,omitempty"`
	Rank     int         `json:"rank,omitempty"`
	Score    json.Number `json:"score,omitempty"`
	Shown    string      `json:"score_text,omitempty"`
	Tied     bool        `json:"tied,omitempty"`
}

// ranksJSON is the standings of a list of members in one period (getRanks).
type ranksJSON struct {
	Board       string       `json:"board"`
	Period      periodJSON   `json:"period"`
	Total       int          `json:"total"`
	Entries     []listedJSON `json:"entries"`
	FrozenSince *time.Time   `json:"frozen_since,omitempty"`
}

// ranksBody is the body of POST /ranks.
type ranksBody struct {
	Members []string `json:"members"`
	Period  string   `json:"period,omitempty"`
	At      string   `json:"at,omitempty"`
}

// friendsJSON is a member's list of friends (getFriends, setFriends).
type friendsJSON struct {
	Member  string   `json:"member"`
	Friends []string `json:"friends"`
}

func (s *Handler) apiRanks(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	body := ranksBody{Period: c.QueryParam("period"), At: c.QueryParam("at")}
	if c.Request().Method == http.MethodPost {
		if err := decodeJSON(c, &body); err != nil {
			return err
		}
	} else {
		body.Members = c.QueryParams()["member"]
	}
	members, err := board.CheckMembers("members", body.Members, board.MaxRankMembers)
	if err != nil {
		return err
	}
	p, _, err := request.Period(&b, body.Period, body.At, s.opts.Store.Now())
	if err != nil {
		return err
	}
	return s.answerRanks(c, &b, p, members)
}

// answerRanks reads members' standings in p as the reader may see them.
func (s *Handler) answerRanks(c echo.Context, b *board.Board, p board.Period, members []string) error {
	lens := s.opts.Gate.Lens(c, b)
	listed, total, err := request.ReadAmong(c.Request().Context(), s.opts.Store, lens, p, members)
	if err != nil {
		return err
	}
	out := ranksJSON{Board: b.ID, Period: toPeriodJSON(p), Total: total, Entries: make([]listedJSON, len(listed)), FrozenSince: s.frozenSince(b)}
	for i, l := range listed {
		j := listedJSON{Member: l.Member, Name: l.Name, Ranked: l.Ranked}
		if l.Ranked {
			j.ListRank, j.Rank = l.ListRank, l.Rank
			j.Score, j.Shown = json.Number(b.Format.Number(l.Score)), b.Format.Display(l.Score)
			j.Tied = (i > 0 && listed[i-1].Ranked && listed[i-1].ListRank == l.ListRank) ||
				(i+1 < len(listed) && listed[i+1].Ranked && listed[i+1].ListRank == l.ListRank)
		}
		out.Entries[i] = j
	}
	return c.JSON(http.StatusOK, out)
}

// friendsOf loads the board and the member of a friends route, and the
// member's list, for a reader the lens lets open the member.
func (s *Handler) friendsOf(c echo.Context) (board.Board, string, []string, error) {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return b, "", nil, err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return b, "", nil, err
	}
	lens := s.opts.Gate.Lens(c, &b)
	if !lens.Opens(member) {
		return b, "", nil, memberNotFound(member, &b)
	}
	fs, err := s.opts.Store.Friends(c.Request().Context(), &b, member)
	if err != nil {
		return b, "", nil, err
	}
	// A personal link on a board with a privacy mode opens its own member
	// only: the friends' ids are the others', hidden like their names.
	open := fs[:0]
	for _, f := range fs {
		if lens.Opens(f) {
			open = append(open, f)
		}
	}
	return b, member, open, nil
}

func (s *Handler) apiFriends(c echo.Context) error {
	_, member, fs, err := s.friendsOf(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, friendsJSON{Member: member, Friends: fs})
}

// apiFriendsRanks is the member's standing among their friends.
func (s *Handler) apiFriendsRanks(c echo.Context) error {
	b, member, fs, err := s.friendsOf(c)
	if err != nil {
		return err
	}
	p, err := s.apiPeriod(c, &b)
	if err != nil {
		return err
	}
	return s.answerRanks(c, &b, p, append([]string{member}, fs...))
}

func (s *Handler) apiSetFriends(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	var body struct {
		Friends *[]string `json:"friends"`
		Reason  string    `json:"reason,omitempty"`
	}
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	if body.Friends == nil {
		ae := apiErr(422, "invalid", `friends: is required ([] drops the member's list)`)
		ae.Field = "friends"
		return ae
	}
	member := request.Param(c, "member")
	if _, _, err := s.opts.Store.SetFriends(c.Request().Context(), b.ID, member, *body.Friends, board.Author{Actor: actorOfKey(keyOf(c)), Reason: body.Reason}); err != nil {
		return err
	}
	fs, err := s.opts.Store.Friends(c.Request().Context(), &b, member)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, friendsJSON{Member: member, Friends: fs})
}
