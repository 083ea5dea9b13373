package request

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/board"
	"podium/rows"
	"podium/web/templates"
)

// Gate is the one policy that decides what a request may read of a board.
// Every public surface (pages, the API's reads, the widget, /tv, the live
// socket, exports, the archive's pages) loads its board through Gate.Board
// and lists boards through Gate.Listed; TestEveryRouteAsksTheGate in web/
// walks the router's routes to prove none goes around it.
//
// Public and unlisted boards are readable by anyone; a private one only with
// a share link's cookie (LinkCookie), an API key that may act on it, or, for
// its widget, a URL signed with the board's embed secret (and the live
// ticket the widget's page hands its socket). To
// anyone else a private board answers exactly as an unknown board does: the
// same 404, the same headers, and about the same time (one Redis read).
// Writes are not the gate's concern: API keys and the console decide those.
type Gate struct {
	Store  BoardReader
	Links  LinkAuth  // nil: no share links
	Keys   KeyAuth   // nil: no API keys
	Embeds EmbedAuth // nil: no signed embeds
	// Tickets signs and checks the live tickets of signed embeds; nil: a
	// signed widget does not update live.
	Tickets TicketSigner
	// Readers finds what a console session may read (access.Readers): a
	// signed-in user reads the private boards they hold a role on on their
	// pages too. nil: the console's sessions count only in the console.
	Readers SessionReaders
	// Masker names members where a board's privacy mode hides names
	// (sight.go); nil: a key of this process.
	Masker *rows.Masker
}

// SessionReaders finds the reader of a console session (access.Readers).
type SessionReaders interface {
	Of(ctx context.Context, token string) (access.Reader, bool, error)
	Role(ctx context.Context, r access.Reader, boardID string, created time.Time) (access.Role, error)
}

// SessionCookie is the console's session cookie. It is sent to every path
// of the site, so a signed-in user's private boards open on their pages;
// the API does not read it (API clients bring keys).
const SessionCookie = "podium_session"

// EmbedAuth checks signed embed URLs (access.Embeds).
type EmbedAuth interface {
	Verify(ctx context.Context, boardID, path, rawQuery string) (time.Time, bool)
	Fingerprint(ctx context.Context, boardID string) (string, error)
}

// TicketSigner signs small values for a while (access.Signer).
type TicketSigner interface {
	Sign(ctx context.Context, purpose, value string, ttl time.Duration) (string, error)
	Verify(ctx context.Context, purpose, token string) (string, bool)
}

// EmbedPath is the route of the widget, the one a signed URL opens.
const EmbedPath = "/embed/:board"

// ticketPurpose is what a live ticket of board id is signed for.
func ticketPurpose(id string) string { return "embed-live:" + id }

// LinkAuth checks share-link tokens (access.Links).
type LinkAuth interface {
	Authenticate(ctx context.Context, token string) (access.Link, error)
}

// KeyAuth checks API keys (access.Keys).
type KeyAuth interface {
	Authenticate(ctx context.Context, secret string) (access.APIKey, error)
}

// Rereader reads a definition from the data store itself, past any cache
// (redisstore's Reread), and tells whether a read went to it
// (BoardFrom): a refusal costs what an unknown board's miss does, one
// read of the data store, whether the definition was cached or not.
type Rereader interface {
	Reread(ctx context.Context, id string) (board.Board, error)
	BoardFrom(ctx context.Context, id string) (b board.Board, fromStore bool, err error)
}

// board reads a definition, and whether that read went to the data store.
func (g *Gate) board(ctx context.Context, id string) (board.Board, bool, error) {
	if r, ok := g.Store.(Rereader); ok {
		return r.BoardFrom(ctx, id)
	}
	b, err := g.Store.Board(ctx, id)
	return b, true, err
}

// LinkCookie is the cookie that carries a share link of board id.
func LinkCookie(id string) string { return "podium_link_" + id }

// credentials are what a request brings to read private boards.
type credentials struct {
	link    string // the share link's token for the board asked for
	session string // a console session's token (pages and /live, not the API)
	key     string // an API key's secret
	// path and query of a signed widget URL (the widget's route only)
	embedPath, embedQuery string
	ticket                string // a signed widget's live ticket (/live only)
	liveSpec              string // the view the socket asks for (LiveSpec)
}

// LiveSpec is the view a live socket's query asks for, in one canonical
// form: every parameter but the board and the ticket. A signed widget's
// ticket is bound to its own, so nobody can take it to another view of the
// board (another page, another member's around-me) than the one signed.
func LiveSpec(q url.Values) string {
	v := url.Values{}
	for k, vals := range q {
		if k != "board" && k != "ticket" {
			v[k] = vals
		}
	}
	return v.Encode()
}

func credentialsOf(c echo.Context, id string) credentials {
	var cr credentials
	if ck, err := c.Cookie(LinkCookie(id)); err == nil {
		cr.link = ck.Value
	}
	if ck, err := c.Cookie(SessionCookie); err == nil && !strings.HasPrefix(c.Path(), "/api/") {
		cr.session = ck.Value
	}
	if h := c.Request().Header.Get("Authorization"); h != "" {
		cr.key, _ = strings.CutPrefix(h, "Bearer ")
	}
	u := c.Request().URL
	switch c.Path() {
	case EmbedPath:
		if strings.Contains(u.RawQuery, "sig=") {
			cr.embedPath, cr.embedQuery = u.EscapedPath(), u.RawQuery
		}
	case "/live":
		cr.ticket = c.QueryParam("ticket")
		cr.liveSpec = LiveSpec(c.QueryParams())
		// A socket may come from any origin (EMBED_ORIGINS), but a share
		// link's or a session's cookie, which the browser sends whoever opens the socket,
		// counts only from a page of this very host: SameSite=Lax keeps
		// other sites' requests from carrying it, not a sibling host's
		// (evil.school.example beside podium.school.example) or a script
		// injected there. A signed widget's ticket is in the URL, not a
		// cookie, and counts from anywhere.
		if o := c.Request().Header.Get("Origin"); o != "" {
			if u, err := url.Parse(o); err != nil || !strings.EqualFold(u.Host, c.Request().Host) {
				cr.link, cr.session = "", ""
			}
		}
	}
	return cr
}

// Board reads the board with the given id if the request may read it, or
// the 404 Problem of an unknown board. A readable board that is not public
// marks the answer Cache-Control: private, no-store (and unlisted ones
// noindex).
func (g *Gate) Board(c echo.Context, id string) (board.Board, error) {
	ctx := c.Request().Context()
	cr := credentialsOf(c, id)
	b, fromStore, err := g.board(ctx, id)
	if errors.Is(err, board.ErrNotFound) {
		// The same work as a refusal, and the same answer when it fails.
		if _, err := g.readable(ctx, id, board.Board{ID: id, Visibility: board.Private}, cr); err != nil {
			return board.Board{}, err
		}
		return b, notFound(id, err)
	}
	if err != nil {
		return b, err
	}
	ok, err := g.readable(ctx, id, b, cr)
	if err != nil {
		return board.Board{}, err
	}
	if !ok {
		if r, ok := g.Store.(Rereader); ok && !fromStore {
			_, _ = r.Reread(ctx, id) // a cached definition: pay what the unknown board's read costs
		}
		return board.Board{}, notFound(id, board.ErrNotFound)
	}
	s, err := g.sight(ctx, id, b, cr)
	if err != nil {
		return board.Board{}, err
	}
	c.Set(sightKey(id), s)
	MarkPrivate(c, &b)
	if b.Guarded() && (s.Full || s.Me != "") {
		// More than the privacy mode leaves to everyone: no shared cache
		// keeps it for the next reader of the address.
		c.Response().Header().Set("Cache-Control", "private, no-store")
	}
	return b, nil
}

// MarkPrivate sets the headers of an answer about board b: a board that is
// not public is no shared cache's business, and an unlisted one is no
// search engine's.
func MarkPrivate(c echo.Context, b *board.Board) {
	h := c.Response().Header()
	switch b.Visibility {
	case board.Private:
		h.Set("Cache-Control", "private, no-store")
	case board.Unlisted:
	default:
		return
	}
	h.Set("X-Robots-Tag", "noindex")
	r := c.Request()
	c.SetRequest(r.WithContext(templates.WithNoIndex(r.Context()))) // and <meta name="robots">
}

// readable decides: public and unlisted boards are readable; a private one
// with a live share link of this board (not of an earlier board of the id)
// or an API key that may act on it.
func (g *Gate) readable(ctx context.Context, id string, b board.Board, cr credentials) (bool, error) {
	if b.Visibility == board.Public || b.Visibility == board.Unlisted {
		return true, nil
	}
	if cr.link != "" && g.Links != nil {
		l, err := g.Links.Authenticate(ctx, cr.link)
		switch {
		case err == nil:
			if l.Board == id && l.Since.Equal(b.Created) {
				return true, nil
			}
		case !errors.Is(err, access.ErrBadLink):
			return false, err
		}
	}
	if cr.key != "" && g.Keys != nil {
		k, err := g.Keys.Authenticate(ctx, cr.key)
		switch {
		case err == nil:
			if k.Allows(id) {
				return true, nil
			}
		case !errors.Is(err, access.ErrBadKey):
			return false, err
		}
	}
	if cr.session != "" && g.Readers != nil {
		r, ok, err := g.Readers.Of(ctx, cr.session)
		if err != nil {
			return false, err
		}
		if ok {
			role, err := g.Readers.Role(ctx, r, id, b.Created)
			if err != nil {
				return false, err
			}
			if role >= access.Viewer {
				return true, nil
			}
		}
	}
	if cr.embedQuery != "" && g.Embeds != nil {
		if _, ok := g.Embeds.Verify(ctx, id, cr.embedPath, cr.embedQuery); ok {
			return true, nil
		}
	}
	if cr.ticket != "" && g.Embeds != nil && g.Tickets != nil {
		fp, err := g.Embeds.Fingerprint(ctx, id)
		if err != nil {
			return false, err
		}
		if v, ok := g.Tickets.Verify(ctx, ticketPurpose(id), cr.ticket); ok && fp != "" && v == fp+"\n"+cr.liveSpec {
			return true, nil
		}
	}
	return false, nil
}

// LiveTicket is what a signed widget's page hands its live socket (the
// socket's URL carries no signature): a token for the view liveQuery asks
// of board id, valid as long as the signed URL and the board's current
// embed secret. "" when the request is not a valid signed URL of the
// board, or nothing can sign.
func (g *Gate) LiveTicket(c echo.Context, id, liveQuery string) string {
	cr := credentialsOf(c, id)
	if cr.embedQuery == "" || g.Embeds == nil || g.Tickets == nil {
		return ""
	}
	ctx := c.Request().Context()
	until, ok := g.Embeds.Verify(ctx, id, cr.embedPath, cr.embedQuery)
	if !ok {
		return ""
	}
	fp, err := g.Embeds.Fingerprint(ctx, id)
	if err != nil || fp == "" {
		return ""
	}
	q, err := url.ParseQuery(liveQuery)
	if err != nil {
		return ""
	}
	t, err := g.Tickets.Sign(ctx, ticketPurpose(id), fp+"\n"+LiveSpec(q), time.Until(until))
	if err != nil {
		return ""
	}
	return t
}

// Listed keeps the boards a listing shows this request: the public ones,
// those an API key it brings may act on, and the private ones its console
// session may read.
func (g *Gate) Listed(c echo.Context, bs []board.Board) []board.Board {
	return g.listed(c, bs, credentialsOf(c, ""))
}

// ListedOnAWall is Listed for a screen a room reads (the wall display's
// default): an API key still lists its boards, a signed-in user's session
// does not add theirs.
func (g *Gate) ListedOnAWall(c echo.Context, bs []board.Board) []board.Board {
	cr := credentialsOf(c, "")
	cr.session = ""
	return g.listed(c, bs, cr)
}

func (g *Gate) listed(c echo.Context, bs []board.Board, cr credentials) []board.Board {
	ctx := c.Request().Context()
	var key *access.APIKey
	if cr.key != "" && g.Keys != nil {
		if k, err := g.Keys.Authenticate(ctx, cr.key); err == nil {
			key = &k
		}
	}
	var reader *access.Reader
	if cr.session != "" && g.Readers != nil {
		if r, ok, err := g.Readers.Of(ctx, cr.session); err == nil && ok {
			reader = &r
		}
	}
	out := bs[:0:0]
	for _, b := range bs {
		full := (key != nil && key.Allows(b.ID)) || (reader != nil && reader.Granted(b.ID, b.Created) >= access.Viewer)
		if full {
			c.Set(sightKey(b.ID), rows.Sight{Full: true}) // what the listing shows of it (Lens)
		}
		if b.Visibility == board.Public || (key != nil && key.Allows(b.ID)) ||
			(b.Visibility == board.Private && reader != nil && g.readerMay(ctx, *reader, &b)) {
			out = append(out, b)
			if b.Visibility == board.Private || (full && b.Guarded()) {
				c.Response().Header().Set("Cache-Control", "private, no-store") // a listing that names one, or shows it whole
			}
		}
	}
	return out
}

// readerMay reports whether a signed-in reader may read b (a listing: a
// failure to tell leaves the board out).
func (g *Gate) readerMay(ctx context.Context, r access.Reader, b *board.Board) bool {
	role, err := g.Readers.Role(ctx, r, b.ID, b.Created)
	return err == nil && role >= access.Viewer
}

// notFound is the answer to an unknown board, and to a private one read
// without access: the two must not differ.
func notFound(id string, err error) error {
	p := ProblemOf(err, "Board not found", "There is no board called “"+id+"”.", HomeLink)
	p.Code = "board_not_found"
	p.Status = http.StatusNotFound
	return p
}
