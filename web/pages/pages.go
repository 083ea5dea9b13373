// Package pages is the public side of Podium: the list of boards, a board in
// a period, around-me, a member's page, the embeddable widget, and the
// handshake of the live WebSocket. Pages work without JavaScript; live.js adds
// updates. Handlers read the request, call the store, render a component.
package pages

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/live"
	"podium/redisstore"
	"podium/web/request"
	"podium/web/templates"
)

// Store is what the pages read from the board engine.
type Store interface {
	Now() time.Time
	Boards(ctx context.Context) ([]board.Board, error)
	Board(ctx context.Context, id string) (board.Board, error)
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error)
	Total(ctx context.Context, b *board.Board, p board.Period) (int, error)
	Friends(ctx context.Context, b *board.Board, member string) ([]string, error)
	Search(ctx context.Context, b *board.Board, p board.Period, prefix string, limit int) ([]board.Entry, bool, error)
	Recent(ctx context.Context, b *board.Board, n int) ([]board.Activity, error)
	ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult
	SegmentPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, error)
	SegmentValues(ctx context.Context, b *board.Board, attr string) ([]redisstore.SegmentValue, error)
	SegmentsOf(ctx context.Context, b *board.Board, member string) (map[string]string, error)
	SegmentRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, error)
	Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error)
	Teams
	Leagues
}

// Live is what the pages need from the live hub.
type Live interface {
	Serve(w http.ResponseWriter, r *http.Request, spec live.Spec, origins []string, addr string, guard func(context.Context) error)
	Stats() live.Stats
}

// Options configure the pages.
type Options struct {
	Store Store
	// Live streams views over WebSockets; nil serves pages without live updates.
	Live Live
	// BaseURL is the public URL of the site, used in embed snippets; empty
	// means the scheme and host of each request.
	BaseURL string
	// EmbedOrigins may frame /embed/ pages and open their live socket.
	EmbedOrigins []string
	// Export serves whole periods as CSV and JSON downloads; nil: none.
	Export request.Exporter
	// History serves the past winners from the archive; nil: none.
	History History
	// Gate decides what a request may read (web/request/gate.go); nil:
	// public and unlisted boards only.
	Gate *request.Gate
	// TrustProxy: TLS is read from X-Forwarded-Proto, for Secure cookies.
	TrustProxy bool
	Logger     *slog.Logger
}

// Handler serves the public pages.
type Handler struct {
	opts Options
	log  *slog.Logger
}

// New makes the pages' handler.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.Gate == nil {
		opts.Gate = &request.Gate{Store: opts.Store}
	}
	return &Handler{opts: opts, log: opts.Logger}
}

// Routes mounts the public pages.
func (s *Handler) Routes(e *echo.Echo) {
	read := []string{http.MethodGet, http.MethodHead}
	e.Match(read, "/", s.home)
	e.Match(read, "/b/:board", s.boardPage)
	e.Match(read, "/b/:board/around/:member", s.aroundPage)
	e.Match(read, "/b/:board/m/:member", s.memberPage)
	e.Match(read, "/b/:board/m/:member/friends", s.friendsPage)
	e.Match(read, "/b/:board/among", s.amongPage)
	e.Match(read, "/b/:board/teams", s.teamsPage)
	e.Match(read, "/b/:board/teams/:team", s.teamPage)
	e.Match(read, "/b/:board/leagues", s.leaguesPage)
	e.Match(read, "/b/:board/leagues/:tier/:cohort", s.cohortPage)
	e.Match(read, "/b/:board/race", s.racePage)
	e.Match(read, "/b/:board/race/chart", s.raceChart)
	e.Match(read, "/b/:board/ctftime.json", s.ctftime)
	e.Match(read, "/embed/:board", s.embedPage)
	e.Match(read, "/tv", s.tvPage)
	e.GET("/s/:token", s.shareLink)
	if s.opts.Export != nil {
		e.GET("/b/:board/export", s.exportPeriod)
	}
	if s.opts.History != nil {
		e.Match(read, "/b/:board/winners", s.winners)
	}
	if s.opts.Live != nil {
		e.GET("/live", s.liveSocket)
	}
}

// loadBoard reads the board named in the path if the request may read it
// (the gate), or a 404 page naming it.
func (s *Handler) loadBoard(c echo.Context) (board.Board, error) {
	return s.opts.Gate.Board(c, request.Param(c, "board"))
}

// invalidMember is the answer to a member id the board refuses (in a path
// or a query): the status the table gives it (request.Classify).
func invalidMember(err error) *request.Problem {
	return request.ProblemOf(err, "That request is not valid", "That member id is not valid: "+request.Reason(err))
}

// periodOf reads ?period= and ?at= for a board, or a 404 page that says
// what was wrong and links to the board's current period.
func (s *Handler) periodOf(c echo.Context, b *board.Board) (board.Period, bool, error) {
	return request.Period(b, c.QueryParam("period"), c.QueryParam("at"), s.opts.Store.Now())
}

// tabs links every enabled period kind in its current period.
func (s *Handler) tabs(b *board.Board, active board.Kind, link func(p board.Period) string) []templates.Link {
	now := s.opts.Store.Now()
	out := make([]templates.Link, 0, len(b.Periods))
	for _, k := range b.Periods {
		out = append(out, templates.Link{Label: templates.TabLabel(b.Current(k, now)), Href: link(b.Current(k, now)), Current: k == active})
	}
	return out
}

// neighbours links the periods before and after p (nil where there is none:
// all time and the rolling windows have no neighbours, a future period is
// not offered, and near years 0001 and 9999 the neighbour may be a period
// no page can show). link makes a period's URL; cur says it is the current
// one, so the link follows the roll-over.
func (s *Handler) neighbours(b *board.Board, p board.Period, link func(x board.Period, cur bool) string) (prev, next *templates.Link) {
	if !p.Kind.Calendar() {
		return nil, nil
	}
	now := s.opts.Store.Now()
	if x := p.Prev(); x.InRange() {
		prev = &templates.Link{Label: x.Short(), Href: link(x, false)}
	}
	if x := p.Next(); x.InRange() && !x.Start.After(now) {
		next = &templates.Link{Label: x.Short(), Href: link(x, b.Current(p.Kind, now).Key == x.Key)}
	}
	return prev, next
}
