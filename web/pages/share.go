package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/board"
	"podium/web/request"
)

// shareLink opens a share link (/s/<token>): it leaves a cookie that lets
// this browser read the link's board, and goes to the board, or, for a
// personal link, to its member's own page. The token
// never stays in the address bar, a history or a Referer.
func (s *Handler) shareLink(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	token := c.Param("token")
	if s.opts.Gate.Links == nil {
		return badLink()
	}
	l, err := s.opts.Gate.Links.Authenticate(c.Request().Context(), token)
	if errors.Is(err, access.ErrBadLink) {
		return badLink()
	}
	if err != nil {
		return err // 503 while Redis is away: the link may well be good
	}
	// A link of an earlier board under the id (deleted, made again) opens
	// nothing, so it leaves nothing either.
	b, err := s.opts.Store.Board(c.Request().Context(), l.Board)
	if errors.Is(err, board.ErrNotFound) || (err == nil && !l.Since.Equal(b.Created)) {
		return badLink()
	}
	if err != nil {
		return err
	}
	r := c.Request()
	secure := r.TLS != nil || (s.opts.TrustProxy && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
	ck := &http.Cookie{Name: request.LinkCookie(l.Board), Value: token, Path: "/", HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteLaxMode, MaxAge: 400 * 24 * 3600}
	if !l.Expires.IsZero() {
		ck.MaxAge = max(1, int(time.Until(l.Expires).Seconds()))
	}
	c.SetCookie(ck)
	if l.Member != "" { // a personal link: the member's own page
		return c.Redirect(http.StatusSeeOther, memberURL(l.Board, l.Member))
	}
	return c.Redirect(http.StatusSeeOther, "/b/"+url.PathEscape(l.Board))
}

// badLink is the answer to a token that is not a live link. It says no more:
// not whether the link ever existed, nor whose board it was.
func badLink() error {
	return request.NotFound("This link does not work",
		strings.Join([]string{"This share link is not valid: it may have expired or been revoked.",
			"Ask whoever gave it to you for a new one."}, " "), request.HomeLink)
}
