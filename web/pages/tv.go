package pages

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// maxTVScreens bounds what one wall display asks of the server: each screen
// is a live socket.
const maxTVScreens = 24

// tvPage is the wall display: the top of one or more boards in one or more
// periods, full screen, live, cycling from one to the next. Everything is in
// the query string, so a display is a bookmark:
//
//	/tv?boards=arcade,sales&periods=week,all&every=20&limit=10&theme=dark
//
// boards defaults to every board (the first maxTVScreens screens of them, in
// the home page's order), periods to each board's default period; a period a
// board does not keep is skipped for that board.
func (s *Handler) tvPage(c echo.Context) error {
	ctx := c.Request().Context()
	every, err := request.Int(c.QueryParam("every"), "every", 15, 5, 3600)
	if err != nil {
		return err
	}
	limit, err := request.Int(c.QueryParam("limit"), "limit", 10, 3, 25)
	if err != nil {
		return err
	}
	theme := c.QueryParam("theme")
	if theme != "" && theme != "light" && theme != "dark" {
		return request.BadRequest("theme must be light or dark (or left out to follow the screen's setting).")
	}
	kinds, err := tvKinds(c.QueryParam("periods"))
	if err != nil {
		return err
	}
	named := len(list(c.QueryParam("boards"))) > 0
	boards, err := s.tvBoards(c, named)
	if err != nil {
		return err
	}
	now := s.opts.Store.Now()
	v := templates.TVView{Every: every, Rows: limit, Theme: theme}
screens:
	for _, b := range boards {
		ks := kinds
		if len(ks) == 0 {
			ks = []board.Kind{b.DefaultPeriod}
		}
		for _, k := range ks {
			if !slices.Contains(b.Periods, k) {
				continue
			}
			if len(v.Screens) == maxTVScreens {
				if !named { // every board: the first ones, in the home page's order
					break screens
				}
				return request.BadRequest(fmt.Sprintf("A display shows at most %d boards and periods; ask for fewer.", maxTVScreens))
			}
			p := b.Current(k, now)
			lens := s.opts.Gate.SharedLens(c, &b) // the wall is seen by all
			pg, err := request.ReadPage(ctx, s.opts.Store, lens, p, 0, limit)
			if err != nil {
				return err
			}
			sc := templates.TVScreen{
				Title:       b.Title,
				PeriodTitle: p.Title(),
				Table:       tableOf(lens, pg.Entries, "", b.Title+", "+p.Title()),
				Empty:       "No scores in " + p.Title() + " yet.",
				Frozen:      rows.FrozenNotice(&b, now, false),
				Countdown:   countdownOf(&b, now),
			}
			if s.opts.Live != nil {
				sc.Live = liveQuery(b.ID, p, true, url.Values{"offset": {"0"}, "limit": {strconv.Itoa(limit)}, "shared": {"1"}})
			}
			v.Screens = append(v.Screens, sc)
		}
	}
	if len(v.Screens) == 0 {
		msg := "There are no boards yet."
		if len(boards) > 0 {
			msg = "None of these boards keeps the periods asked for (" + strings.Join(list(c.QueryParam("periods")), ", ") + ")."
		}
		return request.NotFound("Nothing to show", msg, request.HomeLink)
	}
	return request.Render(c, 200, templates.TVPage(v))
}

// tvKinds reads the periods a display shows (none: each board's default).
func tvKinds(param string) ([]board.Kind, error) {
	var kinds []board.Kind
	for _, k := range list(param) {
		kind := board.Kind(k)
		if !slices.Contains(board.Kinds, kind) {
			return nil, request.BadRequest(fmt.Sprintf("periods: “%s” is not a period; use %s, separated by commas.", k, kindNames()))
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
	}
	return kinds, nil
}

// tvBoards are the boards a display cycles through: those named, or every
// board in the home page's order.
func (s *Handler) tvBoards(c echo.Context, named bool) ([]board.Board, error) {
	ctx := c.Request().Context()
	if !named {
		// A wall display is read by a room, not by the signed-in user whose
		// browser shows it: their session lists none of their private boards.
		bs, err := s.opts.Store.Boards(ctx)
		return s.opts.Gate.ListedOnAWall(c, bs), err
	}
	var boards []board.Board
	for _, id := range list(c.QueryParam("boards")) {
		b, err := s.opts.Gate.Board(c, id)
		if err != nil {
			return nil, err
		}
		boards = append(boards, b)
	}
	return boards, nil
}

// list splits a comma-separated query value, dropping empty items.
func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func kindNames() string {
	names := make([]string, len(board.Kinds))
	for i, k := range board.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
