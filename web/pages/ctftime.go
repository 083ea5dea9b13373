package pages

// The CTFtime feed: a period's standings in the scoreboard format CTFtime
// reads to rate a CTF ({"standings": [{"pos", "team", "score"}]}), so a
// contest run on Podium can be rated there.

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/rows"
)

// ctftimeMax is the most standings the feed lists: CTFtime rates a
// contest by its scoreboard, and a board of a hundred thousand members
// is no CTF's.
const ctftimeMax = 5000

// ctftimePage is how many standings each read of the feed takes.
const ctftimePage = 500

// CTFtimeFeed is the feed's document.
type CTFtimeFeed struct {
	Standings []CTFtimeStanding `json:"standings"`
}

// CTFtimeStanding is one team's (or, on a board without teams, one
// member's) place: pos is its rank in the board's style (ties share it),
// score its score in the board's unit, exactly as stored.
type CTFtimeStanding struct {
	Pos   int         `json:"pos"`
	Team  string      `json:"team"`
	Score json.Number `json:"score"`
}

// ctftime serves the feed of a period (?period=, as the board page):
// the team standing on a board with teams, the members otherwise, as the
// reader may see them (a frozen board's public: the freeze's; a privacy
// mode's: its top and its names).
func (s *Handler) ctftime(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	p, _, err := s.periodOf(c, &b)
	if err != nil {
		return err
	}
	lens := s.opts.Gate.Lens(c, &b)
	read := s.opts.Store.Page
	if b.Teams != board.TeamsOff {
		read, lens = s.opts.Store.TeamPage, full(&b) // teams are named by their ids, no member's name
	}
	feed, err := ctftimeOf(c.Request().Context(), lens, p, read)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, feed)
}

// ctftimeOf reads the standings a page at a time, up to ctftimeMax.
func ctftimeOf(ctx context.Context, lens rows.Lens, p board.Period,
	read func(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)) (CTFtimeFeed, error) {
	b := lens.Board
	feed := CTFtimeFeed{Standings: []CTFtimeStanding{}}
	for off := 0; off < ctftimeMax; off += ctftimePage {
		pg, err := read(ctx, b, p, off, min(ctftimePage, ctftimeMax-off))
		if err != nil {
			return feed, err
		}
		for _, e := range pg.Entries {
			if !lens.Shows(e.Position, e.Member) {
				continue
			}
			feed.Standings = append(feed.Standings, CTFtimeStanding{Pos: e.Rank, Team: lens.Name(e.Member, e.Name), Score: json.Number(b.Format.Number(e.Score))})
		}
		if len(pg.Entries) < ctftimePage || !lens.Counts() && off+ctftimePage >= b.TopOnly {
			break
		}
	}
	return feed, nil
}
