package rows

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"podium/board"
)

// Formats an export can take.
const (
	CSV  = "csv"
	JSON = "json"
)

// Export writes a period's entries as CSV or JSON while each hands them
// over, a page at a time, so a million rows never sit in memory: rank,
// member, name, the score as shown and the raw score (the board's units),
// the extra fields, and the member's value of each of the board's
// attributes (Entry.Segments). An export of segment seg (not zero) holds
// its members with their ranks within it, and their ranks on the whole
// period (global_rank). On a board with a league, an export of a period
// of the league's kind has each member's league there (Entry.League): its
// tier's name, its cohort and its rank in the cohort, and once the
// period's close has run, its move (up, down, stay) and the tier it holds
// next. Names, ids and values that a spreadsheet would read as a formula
// are quoted with a leading apostrophe in CSV.
func Export(w io.Writer, format string, b *board.Board, p board.Period, seg board.Segment, each func(fn func([]board.Entry) error) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	if format == CSV {
		err = exportCSV(bw, b, p, seg, each)
	} else {
		err = exportJSON(bw, b, p, seg, each)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// leagueOf is the board's league when p is of its kind, else nil.
func leagueOf(b *board.Board, p board.Period) *board.League {
	if b.League == nil || b.League.Kind != p.Kind {
		return nil
	}
	return b.League
}

// leagueCells are an entry's league columns: tier, cohort and rank, and
// with closed its move and next tier; empty where it has none.
func leagueCells(l *board.League, lr *board.LeagueRow, closed bool) []string {
	out := make([]string, 3, 5)
	if closed {
		out = out[:5]
	}
	if lr == nil {
		return out
	}
	out[0] = l.TierName(lr.Tier)
	if lr.Cohort > 0 {
		out[1] = strconv.Itoa(lr.Cohort)
	}
	if lr.Rank > 0 {
		out[2] = strconv.Itoa(lr.Rank)
	}
	if closed && lr.Result != nil {
		out[3], out[4] = lr.Result.Move.String(), l.TierName(lr.Result.Next)
	}
	return out
}

// closedIn says whether entries (the first an export writes) come from a
// period whose league close has run: the reader marks every entry alike.
func closedIn(es []board.Entry) bool {
	return len(es) > 0 && es[0].League != nil && es[0].League.Closed
}

// exportCSV writes a row per entry. The attributes' columns follow the
// extra fields' (an attribute named like a field is "segment_<name>"),
// then the league's. The header waits for the first rows: they say
// whether the league's close has run (its columns of moves).
func exportCSV(w io.Writer, b *board.Board, p board.Period, seg board.Segment, each func(fn func([]board.Entry) error) error) error {
	cw := csv.NewWriter(w)
	l := leagueOf(b, p)
	head := []string{"rank", "member", "name", "score", "raw_score"}
	for _, f := range b.Fields {
		head = append(head, f.Name)
	}
	for _, a := range b.Segments {
		if slices.Contains(head, a) {
			a = "segment_" + a
		}
		head = append(head, a)
	}
	if !seg.IsZero() {
		head = append(head, "global_rank")
	}
	started, closed := false, false
	start := func(es []board.Entry) error {
		if started {
			return nil
		}
		started = true
		if l != nil {
			head = append(head, "league_tier", "league_cohort", "league_rank")
			if closed = closedIn(es); closed {
				head = append(head, "league_move", "league_next")
			}
		}
		return cw.Write(head)
	}
	err := each(func(es []board.Entry) error {
		if len(es) == 0 {
			return nil
		}
		if err := start(es); err != nil {
			return err
		}
		for _, e := range es {
			rec := []string{strconv.Itoa(e.Rank), cell(e.Member), cell(e.Name), b.Format.Display(e.Score), b.Format.Number(e.Score)}
			for _, v := range e.Fields {
				rec = append(rec, strconv.FormatInt(v, 10))
			}
			for _, a := range b.Segments {
				rec = append(rec, cell(e.Segments[a]))
			}
			if !seg.IsZero() {
				rec = append(rec, strconv.Itoa(e.GlobalRank))
			}
			if l != nil {
				c := leagueCells(l, e.League, closed)
				c[0] = cell(c[0]) // tier names are the owner's text
				if closed {
					c[4] = cell(c[4])
				}
				rec = append(rec, c...)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	if err := start(nil); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// cell keeps a spreadsheet from running text as a formula (CSV injection),
// leading spaces or not.
func cell(s string) string {
	if t := strings.TrimLeft(s, " "); t != "" && strings.ContainsRune("=+-@\t\r", rune(t[0])) {
		return "'" + s
	}
	return s
}

type exportRow struct {
	Rank   int     `json:"rank"`
	Member string  `json:"member"`
	Name   string  `json:"name"`
	Score  string  `json:"score"`
	Raw    any     `json:"raw_score"` // a JSON number; "+Inf" or "-Inf" as text (outside writers can store them)
	Fields []int64 `json:"fields,omitempty"`
	// Segments are the member's values of the board's attributes.
	Segments map[string]string `json:"segments,omitempty"`
	// GlobalRank is, in a segment's export, the rank on the whole period.
	GlobalRank int `json:"global_rank,omitempty"`
	// The league (a period of its kind): the tier's name, the cohort, the
	// rank in it and, once the close has run, the move and the next tier.
	LeagueTier   string `json:"league_tier,omitempty"`
	LeagueCohort int    `json:"league_cohort,omitempty"`
	LeagueRank   int    `json:"league_rank,omitempty"`
	LeagueMove   string `json:"league_move,omitempty"`
	LeagueNext   string `json:"league_next,omitempty"`
}

func exportJSON(w io.Writer, b *board.Board, p board.Period, seg board.Segment, each func(fn func([]board.Entry) error) error) error {
	meta := map[string]any{"board": b.ID, "period": p.String(), "title": b.Title}
	if !seg.IsZero() {
		meta["segment"] = seg.String()
	}
	l := leagueOf(b, p)
	head, _ := json.Marshal(meta)
	// {"board": ..., "period": ..., "entries": [ ... ]}, one entry a line.
	if _, err := io.WriteString(w, string(head[:len(head)-1])+`,"entries":[`); err != nil {
		return err
	}
	first := true
	err := each(func(es []board.Entry) error {
		for _, e := range es {
			var raw any = json.Number(b.Format.Number(e.Score))
			if math.IsInf(e.Score, 0) || math.IsNaN(e.Score) {
				raw = b.Format.Number(e.Score)
			}
			r := exportRow{Rank: e.Rank, Member: e.Member, Name: e.Name, Score: b.Format.Display(e.Score), Raw: raw, Fields: e.Fields,
				Segments: e.Segments, GlobalRank: e.GlobalRank}
			if l != nil && e.League != nil {
				c := leagueCells(l, e.League, true)
				r.LeagueTier, r.LeagueCohort, r.LeagueRank, r.LeagueMove, r.LeagueNext = c[0], e.League.Cohort, e.League.Rank, c[3], c[4]
			}
			row, err := json.Marshal(r)
			if err != nil {
				return err
			}
			sep := ",\n"
			if first {
				sep, first = "\n", false
			}
			if _, err := io.WriteString(w, sep+string(row)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n]}\n")
	return err
}
