package pages

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/live"
	"podium/rows"
	"podium/web/request"
)

// liveSocket upgrades to a WebSocket streaming one view: a page of a period
// (offset, limit; of a segment's standing with segment=<attr>:<value>, of
// a league cohort's with segment=L:<tier>/<cohort>) or
// the members around one (member, radius). It checks the
// query like the pages do, so a bad one gets a 4xx before any upgrade.
func (s *Handler) liveSocket(c echo.Context) error {
	b, err := s.opts.Gate.Board(c, c.QueryParam("board"))
	if err != nil {
		return err // handleError: 503 while Redis is unreachable, before any upgrade
	}
	kind := c.QueryParam("period")
	if kind == "" {
		kind = string(b.DefaultPeriod)
	}
	at := c.QueryParam("at")
	if _, _, err := request.Period(&b, kind, at, s.opts.Store.Now()); err != nil {
		return err
	}
	spec := live.Spec{Board: b.ID, Kind: board.Kind(kind), Key: at}
	var listed []string
	if list := c.QueryParams()["list"]; len(list) > 0 { // a list's view: the compare and friends pages
		members, err := board.CheckMembers("list", list, live.MaxListMembers)
		if err != nil {
			return err
		}
		// One view per set of members, whatever their order in the
		// address: a list's rows are in board order.
		slices.Sort(members)
		spec.Members = strings.Join(members, "\n")
		listed = members
	} else if member := c.QueryParam("member"); member != "" {
		if err := board.CheckMember(member); err != nil {
			return invalidMember(err)
		}
		spec.Member = member
		if spec.Radius, err = request.Int(c.QueryParam("radius"), "radius", defaultRadius, 0, board.MaxAround); err != nil {
			return err
		}
	} else {
		if spec.Offset, err = request.Int(c.QueryParam("offset"), "offset", 0, 0, 10_000_000); err != nil {
			return err
		}
		if spec.Limit, err = request.Int(c.QueryParam("limit"), "limit", defaultSize, 1, maxSize); err != nil {
			return err
		}
		// Pages start at multiples of their size: viewers of one page share
		// one view, and a client cannot make a view per offset.
		spec.Offset -= spec.Offset % spec.Limit
	}
	spec.Recent = c.QueryParam("recent") == "1" // the board page's recent changes
	lens := s.opts.Gate.Lens(c, &b)
	if c.QueryParam("shared") == "1" { // a widget's or a wall's: shown to others
		lens = s.opts.Gate.SharedLens(c, &b)
	}
	spec.Shared = !lens.Sight.Full
	if spec.Members != "" && !listShown(lens, listed) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("board %q has no list of members to follow", b.ID))
	}
	if spec.Member != "" && !lens.Opens(spec.Member) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("board %q has no member %q to follow", b.ID, spec.Member))
	}
	spec.Own = spec.Shared && spec.Member != "" && spec.Member == lens.Sight.Me
	// A segment of the board, or a cohort of its league in one of the
	// league's periods (board.ParseStanding): no other group standing.
	if spec.Segment, err = board.ParseStanding(&b, spec.Kind, c.QueryParam("segment")); err != nil {
		return request.ProblemOf(err, "That request is not valid", request.Reason(err))
	}
	if !spec.Segment.IsZero() && (spec.Member != "" || spec.Members != "" || c.QueryParam("teams") == "1") {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("board %q has only pages of a segment to follow", b.ID))
	}
	if c.QueryParam("teams") == "1" {
		if b.Teams == board.TeamsOff || spec.Member != "" || spec.Members != "" {
			return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("board %q has no team standing to follow", b.ID))
		}
		spec.Teams, spec.Recent = true, false
	}
	s.opts.Live.Serve(c.Response(), c.Request(), spec, s.opts.EmbedOrigins, c.RealIP(), s.opts.Gate.Guard(c, &b, keeps(spec)))
	return nil
}

// keeps is what a socket's sight must go on holding for its view of the
// board as it is now: a full view, a role or a key that sees everything; a
// member's own view, their personal link (or more); a list's view, a board
// whose privacy mode (set since, perhaps) leaves the reader every member
// of the list.
func keeps(spec live.Spec) func(*board.Board, rows.Sight) bool {
	return func(b *board.Board, s rows.Sight) bool {
		switch {
		case s.Full:
			return true
		case !spec.Shared:
			return false
		case spec.Own:
			return s.Me == spec.Member
		case spec.Members != "":
			return listShown(rows.Lens{Board: b, Sight: s}, strings.Split(spec.Members, "\n"))
		}
		return true
	}
}

// listShown reports whether a list's view may be followed by a reader who
// sees the board through lens: whole, as the compare page shows it (the
// list is ranked among itself, so a member the reader may not open would
// show through the others' list ranks), and every member one the reader
// may open (a personal link that is a private board's only access opens
// no other member, as ReadAmong answers them).
func listShown(lens rows.Lens, members []string) bool {
	if lens.Limited() {
		return false
	}
	for _, m := range members {
		if !lens.Opens(m) {
			return false
		}
	}
	return true
}
