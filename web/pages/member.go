package pages

import (
	"fmt"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
	"podium/web/request"
	"podium/web/templates"
)

// memberNotFound is the page of a member a board has no score of, or
// that the reader may not see: the two must not differ.
func memberNotFound(b *board.Board, member string) *request.Problem {
	return request.NotFound("Member not found", fmt.Sprintf("“%s” has no score on %s right now.", member, b.Title),
		templates.Link{Label: "Back to " + b.Title, Href: "/b/" + b.ID}, request.HomeLink)
}

// memberPage shows a member's rank and score in every period of a board.
func (s *Handler) memberPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	if err := board.CheckMember(member); err != nil {
		return invalidMember(err)
	}
	notFound := memberNotFound(&b, member)
	lens := s.opts.Gate.Lens(c, &b)
	if !lens.Opens(member) { // another member's, where the privacy mode or a personal link keeps them
		return notFound
	}
	sts, err := s.opts.Store.Member(c.Request().Context(), &b, member)
	if err != nil {
		return err
	}
	v := templates.MemberView{BoardTitle: b.Title, BoardHref: "/b/" + b.ID, Member: member, Name: member,
		Frozen: rows.FrozenNotice(&b, s.opts.Store.Now(), false), Uncounted: !lens.Counts()}
	if !lens.Limited() {
		v.CompareHref = amongURL(b.ID, b.Current(b.DefaultPeriod, s.opts.Store.Now()), []string{member})
	}
	vs, segRanks, err := request.MemberSegments(c.Request().Context(), s.opts.Store, &b, lens, member, sts)
	if err != nil {
		return err
	}
	v.Segments = memberSegmentLinks(&b, vs, s.opts.Store.Now())
	if v.League, err = s.memberLeague(c.Request().Context(), lens, member); err != nil {
		return err
	}
	ranked := false
	for i, st := range sts {
		mp := templates.MemberPeriod{Label: templates.TabLabel(st.Period), Key: st.Period.Key, Ranked: st.Ranked}
		if t := st.Period.Title(); t != mp.Label {
			mp.Title = t // the board's name for it, never the raw key
		}
		if st.Name != "" {
			v.Name = st.Name
		}
		if st.Ranked {
			ranked = true
			mp.Rank = templates.Ordinal(st.Rank)
			mp.Score = b.Format.Display(st.Score)
			if lens.Counts() { // how many there are is no business of a reader shown only the top
				mp.Of = templates.Group(st.Total)
				mp.Percentile = fmt.Sprintf("%.0f%%", st.Percentile())
			}
			mp.AroundHref = aroundURL(b.ID, member, st.Period, true)
			mp.Segments = segmentRankViews(&b, st.Period, segRanks, i, lens.Counts())
		}
		v.Periods = append(v.Periods, mp)
	}
	if k := closingKind(&b); k != "" && s.opts.History != nil {
		if v.History, err = s.history(c, lens, member, k); err != nil {
			// The archive is not the page: without it, the page goes on
			// without the chart.
			s.log.Warn("member history unavailable", "board", b.ID, "member", member, "error", err)
			v.History = nil
		}
	}
	own := lens.Sight.Me == member // a personal link's member, before any score: their page, empty
	if !ranked && !own && v.Name == member && (v.History == nil || len(v.History.Rows) == 0) {
		return notFound
	}
	return request.Render(c, 200, templates.Page(v.Name+" · "+b.Title, templates.MemberPage(v)))
}

// memberSegmentLinks are a member's values, each linking to its segment's
// page in the board's default period.
func memberSegmentLinks(b *board.Board, vs map[string]string, now time.Time) []templates.Link {
	var out []templates.Link
	p := b.Current(b.DefaultPeriod, now)
	for _, a := range b.Segments {
		if val, ok := vs[a]; ok {
			seg := board.Segment{Attr: a, Value: val}
			out = append(out, templates.Link{Label: segmentLabel(seg), Href: withSegment(boardURL(b.ID, p, true, 1, 0, ""), seg)})
		}
	}
	return out
}

// segmentRankViews are a member's ranks within its segments in period p
// (ranks[i], from request.MemberSegments), each linking to the segment's
// page of that period.
func segmentRankViews(b *board.Board, p board.Period, ranks [][]request.SegmentRank, i int, counts bool) []templates.SegmentRankView {
	if i >= len(ranks) {
		return nil
	}
	var out []templates.SegmentRankView
	for _, r := range ranks[i] {
		sv := templates.SegmentRankView{Label: segmentLabel(r.Segment), Rank: templates.Ordinal(r.Rank),
			Href: withSegment(boardURL(b.ID, p, true, 1, 0, ""), r.Segment)}
		if counts {
			sv.Of = templates.Group(r.Total)
		}
		out = append(out, sv)
	}
	return out
}

// historyLen is how many past periods a member page charts.
const historyLen = 12

// history is a member's rank in the last closed periods of a kind.
func (s *Handler) history(c echo.Context, lens rows.Lens, member string, k board.Kind) (*templates.RankChart, error) {
	b := lens.Board
	sts, err := s.opts.History.History(c.Request().Context(), b.ID, member, k, historyLen)
	if err != nil {
		return nil, err
	}
	chart := &templates.RankChart{Title: "Past " + kindPlural(b, k)}
	var ranks []int
	var labels []string
	worst := 1
	for _, st := range sts {
		_, key, _ := strings.Cut(st.Period, ":")
		p, err := b.PeriodOf(k, key)
		if err != nil || s.secret(b, p) {
			continue
		}
		score, of := b.Format.Display(st.Score), ""
		if lens.Counts() {
			of = templates.Group(st.Members)
		}
		chart.Rows = append(chart.Rows, templates.ChartRow{Period: p.Title(), Href: boardURL(b.ID, p, false, 1, 0, ""),
			Rank: templates.Ordinal(st.Rank), Of: of, Score: score})
		ranks = append(ranks, st.Rank)
		label := fmt.Sprintf("%s: %s, %s", p.Title(), templates.Ordinal(st.Rank), score)
		if of != "" {
			label = fmt.Sprintf("%s: %s of %s, %s", p.Title(), templates.Ordinal(st.Rank), of, score)
		}
		labels = append(labels, label)
		worst = max(worst, st.Rank)
	}
	chart.Line, chart.Dots = templates.PlotRanks(ranks, worst, labels)
	chart.Top, chart.Bottom = templates.Ordinal(1), templates.Ordinal(worst)
	if worst == 1 {
		chart.Bottom = "" // first every time: one line says it
	}
	return chart, nil
}
