package request

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/board"
	"podium/rows"
)

// What a request may see of a board it may read (rows.Sight): everything
// with a credential that may act on the board (an API key of it, a console
// session with a role on it), else what the board's privacy mode shows
// the shared surfaces, and with a personal link its own member whole.
// Gate.Board works it out with the board and keeps it on the request;
// Gate.Lens hands it to whatever shows the board's members.

// sightKey is where Gate.Board keeps the sight of a board on the request.
func sightKey(id string) string { return "podium.sight:" + id }

// sight works out what the request's credentials cr see of board b, which
// they may read.
func (g *Gate) sight(ctx context.Context, id string, b board.Board, cr credentials) (rows.Sight, error) {
	var s rows.Sight
	if cr.key != "" && g.Keys != nil {
		k, err := g.Keys.Authenticate(ctx, cr.key)
		if err == nil && k.Allows(id) {
			return rows.Sight{Full: true}, nil
		}
		if err != nil && !errors.Is(err, access.ErrBadKey) {
			return s, err
		}
	}
	if cr.session != "" && g.Readers != nil {
		r, ok, err := g.Readers.Of(ctx, cr.session)
		if err != nil {
			return s, err
		}
		if ok && r.Granted(id, b.Created) >= access.Viewer {
			return rows.Sight{Full: true}, nil
		}
	}
	if cr.link != "" && g.Links != nil {
		l, err := g.Links.Authenticate(ctx, cr.link)
		if err != nil && !errors.Is(err, access.ErrBadLink) {
			return s, err
		}
		if err == nil && l.Member != "" && l.Board == id && l.Since.Equal(b.Created) {
			s.Me = l.Member
			// Is the personal link the request's only access?
			without := cr
			without.link = ""
			ok, err := g.readable(ctx, id, b, without)
			if err != nil {
				return s, err
			}
			s.OnlyMe = !ok
		}
	}
	return s, nil
}

// Lens is what the request sees of board b, as Gate.Board gave it: a board
// the gate did not give it is seen as a shared surface sees it.
func (g *Gate) Lens(c echo.Context, b *board.Board) rows.Lens {
	s, _ := c.Get(sightKey(b.ID)).(rows.Sight)
	return rows.Lens{Board: b, Sight: s, Masker: g.masker()}
}

// SharedLens is board b as a surface made to be seen by others (the
// widget, the wall display) shows it, whoever opened it: through its
// privacy mode, and without a personal link's own member, though with
// the other limits of the request's sight (a personal link alone opens
// no other member).
func (g *Gate) SharedLens(c echo.Context, b *board.Board) rows.Lens {
	l := g.Lens(c, b)
	l.Sight = rows.Sight{OnlyMe: l.Sight.OnlyMe}
	return l
}

// fallbackMasker names members where the gate was given no Masker (a
// server built without the app's key, in tests): a key of this process.
var fallbackMasker = sync.OnceValue(func() *rows.Masker {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return rows.NewMasker(key)
})

func (g *Gate) masker() *rows.Masker {
	if g.Masker != nil {
		return g.Masker
	}
	return fallbackMasker()
}

// PageReader reads a window of a period (redisstore.Store).
type PageReader interface {
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
}

// ReadPage reads the entries at offset..offset+limit of period p for a
// reader who sees the board through lens. Where only the top is shown, it
// reads the top whole, whatever the window, and keeps the window's part of
// it: what a window costs to read (the time an answer takes) then tells
// nothing of the members beyond the top, not even how many there are. The
// entries and the total are the store's: lens decides what of them shows.
func ReadPage(ctx context.Context, r PageReader, lens rows.Lens, p board.Period, offset, limit int) (board.Page, error) {
	if lens.Counts() {
		return r.Page(ctx, lens.Board, p, offset, limit)
	}
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	pg, err := r.Page(ctx, lens.Board, p, 0, lens.Board.TopOnly)
	if err != nil {
		return pg, err
	}
	n := len(pg.Entries)
	pg.Entries, pg.Offset = pg.Entries[min(offset, n):min(offset+limit, n)], offset
	return pg, nil
}

// AfterReader reads the rows after a mark of a period (redisstore.Store).
type AfterReader interface {
	PageReader
	PageAfter(ctx context.Context, b *board.Board, p board.Period, m board.Mark, limit int) (board.Page, error)
}

// ReadPageAfter reads up to limit entries after mark m of period p (a
// cursor's) for a reader who sees the board through lens. Where only the
// top is shown it reads the top whole, as ReadPage does, and keeps the
// rows after m within it: no cursor, whoever got it, opens a place past
// the top, and what the read costs tells nothing beyond it. Page.Offset
// is the first row's position (with none, where the rows end).
func ReadPageAfter(ctx context.Context, r AfterReader, lens rows.Lens, p board.Period, m board.Mark, limit int) (board.Page, error) {
	if lens.Counts() {
		return r.PageAfter(ctx, lens.Board, p, m, limit)
	}
	if err := board.CheckWindow(0, limit); err != nil {
		return board.Page{}, err
	}
	pg, err := r.Page(ctx, lens.Board, p, 0, lens.Board.TopOnly)
	if err != nil {
		return pg, err
	}
	higher := lens.Board.Order == board.HigherIsBetter
	from := len(pg.Entries)
	for i, e := range pg.Entries {
		if m.Precedes(e, higher) {
			from = i
			break
		}
	}
	pg.Entries, pg.Offset = pg.Entries[from:min(from+limit, len(pg.Entries))], from
	return pg, nil
}
