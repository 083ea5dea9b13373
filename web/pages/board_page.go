package pages

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/live"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

const (
	recentOnBoard = live.RecentSize // as many as live frames carry
	searchLimit   = 50
)

// boardPage shows a board in one period, a page at a time, the members
// whose names start with ?q=, or one segment's standing (?segment=).
// standingLinks are the board page's links to the period's other
// standings: teams, the race, the league; and a rolling window's note.
func (s *Handler) standingLinks(b *board.Board, p board.Period, current bool, v *templates.BoardView) {
	if p.Kind.Rolling() {
		v.PeriodNote = windowNote(b, p.Kind)
	} else {
		v.RaceHref = raceURL(b.ID, p, current)
	}
	if b.Teams != board.TeamsOff {
		v.TeamsHref = teamsURL(b.ID, p, current, 1)
	}
	if l := b.League; l != nil {
		if p.Kind == l.Kind {
			v.LeagueHref = leaguesURL(b.ID, p, current)
		} else {
			v.LeagueHref = leaguesURL(b.ID, b.Current(l.Kind, s.opts.Store.Now()), true)
		}
	}
}

func (s *Handler) boardPage(c echo.Context) error {
	ctx := c.Request().Context()
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	p, current, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	ask, err := boardQuery(c, &b)
	if err != nil {
		return err
	}
	size, page, q, seg := ask.size, ask.page, ask.q, ask.seg
	lens := s.opts.Gate.Lens(c, &b)
	noSearch := lens.Hides("") // names hidden: a search by name would tell who is where
	if q != "" && noSearch {
		return request.BadRequest(b.Title + " hides its members' names: it cannot be searched by name.")
	}
	v := templates.BoardView{
		Title:       b.Title,
		ID:          b.ID,
		Meta:        templates.BoardMeta(&b),
		PeriodTitle: p.Title(),
		Query:       q,
		Searching:   q != "",
		NoSearch:    noSearch,
		ClearSearch: boardURL(b.ID, p, current, 1, size, ""),
		Live: templates.LiveInfo{Period: string(p.Kind), MemberHref: "/b/" + url.PathEscape(b.ID) + "/m/",
			Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false), Countdown: countdownOf(&b, s.opts.Store.Now())},
	}
	s.standingLinks(&b, p, current, &v)
	s.boardNav(lens, p, current, ask, &v)
	// The table is what the page's live view shows, the same for every
	// reader of the shared surfaces: a personal link's own place is above it
	// (mine).
	table := lens
	table.Sight.Me = ""
	at := pageAt{page: page, size: size, current: current}
	switch {
	case q != "":
		err = s.searchRows(ctx, table, p, q, &v)
	case !seg.IsZero():
		err = s.segmentRows(ctx, table, p, seg, at, &v)
	default:
		err = s.pageRows(ctx, table, p, at, &v)
	}
	if err != nil {
		return err
	}
	if v.Segment, err = s.segmentFilter(ctx, lens, p, seg, current, size); err != nil {
		return err
	}
	if v.Mine, err = s.mine(ctx, lens, p, current); err != nil {
		return err
	}
	if err := s.recent(ctx, lens, p, &v); err != nil {
		return err
	}
	s.boardLinks(c, &b, p, &v)
	title := b.Title
	if !seg.IsZero() {
		title += " · " + segmentLabel(seg)
	}
	return request.Render(c, 200, templates.Page(title, templates.BoardPage(v)))
}

// boardNav fills a board page's live view, period tabs and previous and
// next periods, each keeping the segment shown.
func (s *Handler) boardNav(lens rows.Lens, p board.Period, current bool, ask boardAsk, v *templates.BoardView) {
	b, seg, size := lens.Board, ask.seg, ask.size
	if !current {
		v.Live.Key = p.Key
		v.Live.Closed = p.Ended(s.opts.Store.Now()) // not a future period asked for by key
	}
	if s.opts.Live != nil && ask.q == "" {
		extra := url.Values{"offset": {strconv.Itoa((ask.page - 1) * size)}, "limit": {strconv.Itoa(size)}}
		if !v.Live.Closed && !lens.Limited() && seg.IsZero() {
			extra.Set("recent", "1") // the page's recent changes follow too (the whole board's: not on a segment's)
		}
		if !seg.IsZero() {
			extra.Set("segment", seg.String())
		}
		v.Live.Query = liveQuery(b.ID, p, current, extra)
	}
	v.Tabs = s.tabs(b, p.Kind, func(x board.Period) string { return withSegment(boardURL(b.ID, x, true, 1, size, ""), seg) })
	v.Prev, v.Next = s.neighbours(b, p, func(x board.Period, cur bool) string { return withSegment(boardURL(b.ID, x, cur, 1, size, ""), seg) })
}

// boardAsk is what a board page's query asks for beyond the period.
type boardAsk struct {
	size, page int
	q          string
	seg        board.Segment // zero: the whole board (always, for a search)
}

// boardQuery reads a board page's size, page, search and segment.
func boardQuery(c echo.Context, b *board.Board) (boardAsk, error) {
	var a boardAsk
	var err error
	if a.size, err = request.Int(c.QueryParam("size"), "size", defaultSize, 1, maxSize); err != nil {
		return a, err
	}
	if a.page, err = request.Int(c.QueryParam("page"), "page", 1, 1, 1_000_000); err != nil {
		return a, err
	}
	a.q = strings.TrimSpace(c.QueryParam("q"))
	if len(a.q) > board.MaxMemberLen {
		return a, request.BadRequest(fmt.Sprintf("A search may be at most %d characters.", board.MaxMemberLen))
	}
	raw := c.QueryParam("segment")
	if a.seg, err = board.ParseSegment(b, raw); err != nil {
		return a, request.ProblemOf(err, "That segment is not valid", "segment="+raw+": "+request.Reason(err),
			templates.Link{Label: "Back to " + b.Title, Href: "/b/" + url.PathEscape(b.ID)})
	}
	if a.q != "" {
		a.seg = board.Segment{} // a search is of the whole board
	}
	return a, nil
}

// recent fills the recent changes of period p: the period's own, and only
// while it is open (a closed period's standings are final). Who scored
// what is nothing a privacy mode shows.
func (s *Handler) recent(ctx context.Context, lens rows.Lens, p board.Period, v *templates.BoardView) error {
	guarded(lens, v)
	if v.Segment != nil && v.Segment.Current != "" {
		v.NoRecent = true // the whole board's changes: not the segment's
	}
	if v.Live.Closed || v.NoRecent {
		return nil
	}
	acts, err := s.opts.Store.Recent(ctx, lens.Board, recentOnBoard)
	if err != nil {
		return err
	}
	v.Recent = activities(lens.Board, acts, p, s.opts.Store.Now())
	return nil
}

// boardLinks fills the links under a board: embed, exports, winners, and
// the embed snippet.
func (s *Handler) boardLinks(c echo.Context, b *board.Board, p board.Period, v *templates.BoardView) {
	v.EmbedHref = embedURL(b.ID, p, true, 10)
	if s.opts.Export != nil {
		v.ExportCSV, v.ExportJSON = exportURL(b.ID, p, rows.CSV), exportURL(b.ID, p, rows.JSON)
	}
	if s.opts.History != nil && slices.ContainsFunc(b.Periods, board.Kind.Calendar) {
		v.WinnersHref = winnersURL(b.ID, "", 1)
	}
	v.Snippet = s.snippet(c, b, p)
}

// pageAt is which page of a period a board page shows.
type pageAt struct {
	page, size int
	current    bool // the period is the current one (its URL names no key)
}

// searchRows fills v with the members of period p whose names start with q.
func (s *Handler) searchRows(ctx context.Context, lens rows.Lens, p board.Period, q string, v *templates.BoardView) error {
	b := lens.Board
	found, complete, err := s.search(ctx, lens, p, q)
	if errors.Is(err, board.ErrGone) {
		return s.gone(b, p, err)
	}
	if err != nil {
		return err
	}
	v.Table = tableOf(lens, found, "", "Members of "+b.Title+" named "+q)
	v.Incomplete = !complete || len(found) == searchLimit
	v.Empty = "Nobody whose name starts with “" + q + "” has a score in this period."
	if lens.Limited() {
		v.Incomplete = false // not a hint that more were found than shown
		v.Empty = "Nobody shown on this board has a name that starts with “" + q + "”."
	}
	total, err := s.opts.Store.Page(ctx, b, p, 0, 1)
	if err != nil {
		return err
	}
	v.Total = lens.Total(total.Total)
	return nil
}

// search finds the members of period p whose names start with q: through
// the name index, or, for a reader shown only the top, among the places
// shown. The index's first matches may all be members the reader is not
// shown (the places shown that match would then go unfound), and the time
// it takes to walk them would tell how many there are.
func (s *Handler) search(ctx context.Context, lens rows.Lens, p board.Period, q string) ([]board.Entry, bool, error) {
	b := lens.Board
	if lens.Counts() {
		return s.opts.Store.Search(ctx, b, p, q, searchLimit)
	}
	pg, err := s.opts.Store.Page(ctx, b, p, 0, b.TopOnly)
	if err != nil {
		return nil, false, err
	}
	prefix := strings.ToLower(q) // as the name index keeps names (redisstore.Search)
	var out []board.Entry
	for _, e := range pg.Entries {
		if strings.HasPrefix(strings.ToLower(e.Name), prefix) {
			out = append(out, e)
		}
	}
	return out, true, nil
}

// pageRows fills v with one page of period p, and the links to its
// neighbouring pages.
func (s *Handler) pageRows(ctx context.Context, lens rows.Lens, p board.Period, at pageAt, v *templates.BoardView) error {
	b := lens.Board
	page, size, label := at.page, at.size, p.Title()
	pg, err := request.ReadPage(ctx, s.opts.Store, lens, p, (page-1)*size, size)
	if errors.Is(err, board.ErrGone) {
		return s.gone(b, p, err)
	}
	if err != nil {
		return err
	}
	total := lens.Total(pg.Total)
	pages := max(1, (total+size-1)/size)
	if page > pages {
		return request.NotFound("Page not found", fmt.Sprintf("%s has %d %s in %s at %d a page.", b.Title, pages, templates.Plural(pages, "page", "pages"), label, size),
			templates.Link{Label: "First page", Href: boardURL(b.ID, p, at.current, 1, size, "")})
	}
	v.Total = total
	v.Table = tableOf(lens, pg.Entries, "", b.Title+", "+label)
	v.Empty = "No scores in " + label + " yet."
	v.PageLabel = fmt.Sprintf("Page %d of %d", page, pages)
	if page > 1 {
		v.PrevPage = boardURL(b.ID, p, at.current, page-1, size, "")
	}
	if page < pages {
		v.NextPage = boardURL(b.ID, p, at.current, page+1, size, "")
	}
	return nil
}

// gone says plainly that a closed period's scores are kept neither in Redis
// nor in the archive, rather than showing an empty board, and logs it for
// the operator.
func (s *Handler) gone(b *board.Board, p board.Period, err error) error {
	s.log.Warn("a closed period expired from Redis is missing from the archive", slog.String("board", b.ID), slog.String("period", p.String()), slog.Any("error", err))
	return request.ProblemOf(err, "This period is no longer kept",
		fmt.Sprintf("The scores of %s on %s have left the live store, and the archive does not hold them, so they cannot be shown.", p.Title(), b.Title),
		templates.Link{Label: "Back to " + b.Title, Href: "/b/" + url.PathEscape(b.ID)}, request.HomeLink)
}

// snippet is the copy-paste embed code: the iframe, and a listener that sizes
// it from the height the widget reports.
func (s *Handler) snippet(c echo.Context, b *board.Board, p board.Period) string {
	base := s.baseURL(c)
	src := base + embedURL(b.ID, p, true, 10)
	return fmt.Sprintf(`<iframe src="%s" title="%s" data-podium style="width:100%%;max-width:480px;border:0;height:480px;color-scheme:normal" loading="lazy"></iframe>
<script>
addEventListener("message", function (e) {
  if (e.origin !== "%s" || !e.data || e.data.type !== "podium:height") return;
  document.querySelectorAll("iframe[data-podium]").forEach(function (f) {
    if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
  });
});
</script>`, html.EscapeString(src), html.EscapeString(b.Title+" leaderboard"), base)
}

// baseURL is the configured public URL, or this request's scheme and host.
func (s *Handler) baseURL(c echo.Context) string {
	if s.opts.BaseURL != "" {
		return s.opts.BaseURL
	}
	return c.Scheme() + "://" + c.Request().Host
}

// windowNote says what a rolling window holds, for people: "Adds up what
// was scored today and the 6 days before (days in Europe/Paris). The oldest
// day drops out as each day ends."
func windowNote(b *board.Board, k board.Kind) string {
	covers, step := board.WindowCovers(k), "hour"
	if k != board.Last24h {
		step = "day"
		covers += " (days in " + b.TimeZone + ")"
	}
	what := "Adds up what was scored in "
	if step == "day" {
		what = "Adds up what was scored "
	}
	if b.Window == board.WindowBest {
		what = "Each member's best score from "
	}
	return what + covers + ". The oldest " + step + " drops out as each " + step + " ends."
}

// mine is the reader's own place in period p when they came with a
// personal link; nil otherwise.
func (s *Handler) mine(ctx context.Context, lens rows.Lens, p board.Period, current bool) (*templates.Mine, error) {
	me, b := lens.Sight.Me, lens.Board
	if me == "" {
		return nil, nil
	}
	m := &templates.Mine{Name: me, Href: memberURL(b.ID, me)}
	pg, pos, err := s.opts.Store.Around(ctx, b, p, me, 0)
	switch {
	case errors.Is(err, board.ErrNotFound):
		return m, nil
	case err != nil:
		return nil, err
	}
	e := pg.Entries[pos-pg.Offset]
	m.Name, m.Ranked, m.Rank, m.Score = e.Name, true, templates.Ordinal(e.Rank), b.Format.Display(e.Score)
	m.AroundHref = aroundURL(b.ID, me, p, current)
	return m, nil
}

// guarded fills what a board's privacy mode changes on its page for this
// reader: no recent changes, a note, and a count of the places shown.
func guarded(lens rows.Lens, v *templates.BoardView) {
	v.NoRecent, v.Privacy = lens.Limited(), privacyNote(lens)
	if !lens.Counts() {
		v.Noun = "place places" // the places shown, not the members there are
	}
}

// privacyNote says once what a board's privacy mode hides from this
// reader: "Only the top 5 places are shown, with names as initials."
func privacyNote(lens rows.Lens) string {
	if !lens.Limited() {
		return ""
	}
	b, parts := lens.Board, []string{}
	if b.TopOnly > 0 {
		parts = append(parts, fmt.Sprintf("Only the top %d %s shown", b.TopOnly, templates.Plural(b.TopOnly, "place is", "places are")))
	}
	switch b.Names {
	case board.Initials:
		parts = append(parts, "names are shown as initials")
	case board.Pseudonyms:
		parts = append(parts, "names are shown as pseudonyms")
	}
	out := strings.Join(parts, "; ")
	return strings.ToUpper(out[:1]) + out[1:] + "."
}
