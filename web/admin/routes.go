package admin

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"podium/access"
	"podium/audit"
	"podium/redisstore"
	"podium/web/request"
	"podium/web/templates"
)

const (
	sessionCookie = request.SessionCookie
	loginCookie   = "podium_login"
	flashCookie   = "podium_flash"
	deviceCookie  = "podium_device"
)

// Routes mounts the console under /admin.
func (s *Handler) Routes(e *echo.Echo) {
	// Console forms are small: a bounded body keeps a hostile one from costing
	// memory, Redis keys or log lines before any field is checked.
	g := e.Group("/admin", middleware.BodyLimit(formBodyLimit), s.adminHeaders, s.sameOrigin, readForm)
	g.GET("/login", s.loginPage)
	g.POST("/login", s.login)
	a := g.Group("", s.requireSession, s.checkCSRF)
	viewer, scorekeeper, owner := s.need(access.Viewer), s.need(access.Scorekeeper), s.need(access.Owner)
	a.POST("/logout", s.logout)
	a.GET("", s.adminBoards)
	a.GET("/", s.adminBoards)
	a.GET("/boards/new", s.boardForm, s.siteOnly)
	a.POST("/boards/new", s.createBoard, s.siteOnly)
	a.GET("/boards/:board/edit", s.boardForm, owner)
	a.POST("/boards/:board/edit", s.updateBoard, owner)
	a.GET("/boards/:board/delete", s.deleteBoardPage, owner)
	a.POST("/boards/:board/delete", s.deleteBoard, owner)
	a.GET("/boards/:board", s.manageBoard, viewer)
	a.POST("/boards/:board/score", s.adjustScore, scorekeeper)
	a.GET("/boards/:board/held", s.heldPage, scorekeeper) // the review queue (held.go)
	a.POST("/boards/:board/held/:id/approve", s.approveHeld, scorekeeper)
	a.POST("/boards/:board/held/:id/reject", s.rejectHeld, scorekeeper)
	a.POST("/boards/:board/remove", s.removeMember, scorekeeper)
	a.POST("/boards/:board/reset", s.resetPeriod, scorekeeper)
	a.POST("/boards/:board/rename", s.renameMember, scorekeeper)
	a.POST("/boards/:board/team", s.setTeam, scorekeeper)
	a.POST("/boards/:board/segment", s.setSegment, scorekeeper)
	if s.opts.Members != nil {
		a.GET("/boards/:board/data", s.memberData, owner)
		a.GET("/boards/:board/erase", s.erasePage, owner)
		a.POST("/boards/:board/erase", s.eraseMember, owner)
	}
	s.hookRoutes(a, owner)
	a.POST("/boards/:board/freeze", s.freezeBoard, scorekeeper)
	a.POST("/boards/:board/unfreeze", s.unfreezeBoard, scorekeeper)
	a.POST("/boards/:board/reveal", s.revealBoard, scorekeeper)
	a.GET("/boards/:board/live", s.liveSocket, scorekeeper) // a frozen board's live standings
	a.GET("/boards/:board/sharing", s.sharingPage, owner)
	a.POST("/boards/:board/links", s.createLink, owner)
	a.POST("/boards/:board/links/:id/revoke", s.revokeLink, owner)
	a.POST("/boards/:board/personal", s.createPersonal, owner)
	a.POST("/boards/:board/personal/revoke", s.revokePersonal, owner)
	a.POST("/boards/:board/embed", s.rotateEmbed, owner)
	a.POST("/boards/:board/embed/off", s.embedOff, owner)
	if s.opts.Grants != nil {
		a.GET("/boards/:board/people", s.peoplePage, owner)
		a.POST("/boards/:board/people", s.grantRole, owner)
		a.POST("/boards/:board/people/:user/revoke", s.revokeRole, owner)
		a.POST("/boards/:board/allow", s.setAllow, owner)
	}
	a.GET("/audit", s.auditPage)
	a.GET("/keys", s.keysPage, s.siteOnly)
	a.POST("/keys", s.createKey, s.siteOnly)
	a.POST("/keys/:id/revoke", s.revokeKey, s.siteOnly)
	a.GET("/users", s.usersPage, s.siteOnly)
	a.POST("/users", s.addUser, s.siteOnly)
	a.POST("/users/:user/kind", s.setUserKind, s.siteOnly)
	a.POST("/users/:user/delete", s.removeUser, s.siteOnly)
	a.GET("/sessions", s.sessionsPage)
	a.POST("/sessions/others", s.endOtherSessions)
	a.POST("/sessions/:id/end", s.endSession)
}

// adminHeaders: admin pages are never cached (and, like every page but the
// widget, never framed).
func (s *Handler) adminHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return next(c)
	}
}

// crossOrigin is the standard library's check of the browser's own
// Sec-Fetch-Site and Origin headers (GET, HEAD and OPTIONS pass).
var crossOrigin = http.NewCrossOriginProtection()

// sameOrigin refuses state-changing requests from other sites.
func (s *Handler) sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if err := crossOrigin.Check(r); err != nil {
			return request.Forbidden("Refused", refusedFrom(r))
		}
		return next(c)
	}
}

// refusedFrom says where a refused form came from.
func refusedFrom(r *http.Request) string {
	switch o := r.Header.Get("Origin"); o {
	case "null":
		// Sandboxed frames, file: pages and some redirects send "null":
		// no site we know, so no change is accepted from it.
		return "This form was sent from a page without an origin (a sandboxed frame or a local file)."
	case "":
		return "This form was sent from another site."
	default:
		return "This form was sent from another site (" + o + ")."
	}
}

func (s *Handler) secure(c echo.Context) bool {
	return c.Request().TLS != nil || (s.opts.TrustProxy && strings.EqualFold(c.Request().Header.Get("X-Forwarded-Proto"), "https"))
}

// setCookie sets one of the console's own cookies (the session's is
// request.SetSessionCookie, site-wide).
func (s *Handler) setCookie(c echo.Context, name, value string, maxAge int) {
	c.SetCookie(&http.Cookie{Name: name, Value: value, Path: "/admin", MaxAge: maxAge, HttpOnly: true,
		Secure: s.secure(c), SameSite: http.SameSiteLaxMode})
}

func session(c echo.Context) access.Session { s, _ := c.Get("session").(access.Session); return s }

// requireSession lets signed-in admins through and sends others to log in.
func (s *Handler) requireSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		sess, acc, err := s.currentSession(c)
		if err != nil {
			return err
		}
		if sess != nil && strings.HasPrefix(sess.User, access.OrgPrefix) {
			return request.Forbidden("No console account", "You are signed in with your organisation as "+sess.Email+
				", which opens the private boards your organisation may read, but not the console. A site admin can add a user named "+sess.Email+" to give you one.",
				templates.Link{Label: "Boards", Href: "/"})
		}
		if sess != nil {
			c.Set("session", *sess)
			c.Set("account", acc)
			if acc.SiteAdmin {
				// Site admins read a frozen board's live standings
				// (redisstore.LiveStandings), board users where their role
				// lets them freeze and reveal (need); the public pages never
				// run under this middleware.
				c.SetRequest(c.Request().WithContext(redisstore.LiveStandings(c.Request().Context())))
			}
			return next(c)
		}
		if c.Request().Method != http.MethodGet {
			return request.Forbidden("Signed out", "Your session has ended; sign in and send the form again.",
				templates.Link{Label: "Sign in", Href: "/admin/login"})
		}
		return c.Redirect(http.StatusSeeOther, "/admin/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
	}
}

// currentSession is the request's valid session and its account, or nil.
// The session of a user who has since been removed is ended here.
func (s *Handler) currentSession(c echo.Context) (*access.Session, access.Account, error) {
	ck, err := c.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil, access.Account{}, nil
	}
	ctx := c.Request().Context()
	sess, err := s.opts.Sessions.Get(ctx, ck.Value)
	if errors.Is(err, access.ErrNoSession) {
		return nil, access.Account{}, nil
	}
	if err != nil {
		return nil, access.Account{}, err
	}
	if strings.HasPrefix(sess.User, access.OrgPrefix) {
		return &sess, access.Account{}, nil // the organisation's: no account, and none expected
	}
	acc, err := s.opts.Accounts.Get(ctx, sess.User)
	if errors.Is(err, access.ErrNotFound) {
		return nil, access.Account{}, s.opts.Sessions.Delete(ctx, ck.Value)
	}
	if err != nil {
		return nil, access.Account{}, err
	}
	return &sess, acc, nil
}

// checkCSRF requires the session's token on every state-changing form.
func (s *Handler) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodPost && !session(c).CheckCSRF(csrfToken(c)) {
			return request.Forbidden("Refused", "This form is missing its security token, or it has expired. Reload the page and try again.")
		}
		return next(c)
	}
}

func (s *Handler) nav(c echo.Context, active string) templates.AdminNav {
	sess := session(c)
	return templates.AdminNav{User: sess.User, CSRF: sess.CSRF(), Active: active, Flash: s.takeFlash(c), Site: account(c).SiteAdmin}
}

// actor names the signed-in user in the audit log: "admin:alice" for a site
// admin, "user:ta" for a board user.
func (s *Handler) actor(c echo.Context) string {
	if account(c).SiteAdmin {
		return "admin:" + session(c).User
	}
	return "user:" + session(c).User
}

// audit records a change made by the signed-in admin.
func (s *Handler) audit(c echo.Context, e audit.Entry) {
	e.Actor = s.actor(c)
	s.record(c, e)
}

// done redirects after a change, with a message the next page shows once.
// The message travels in a cookie the server signs, never in the URL, so
// nobody can make the console show words of their choosing.
func (s *Handler) done(c echo.Context, to, msg string) error {
	if signed, err := s.opts.Signer.Sign(c.Request().Context(), "flash", msg, time.Minute); err == nil {
		s.setCookie(c, flashCookie, signed, 60)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// takeFlash reads the message done left, and clears it: it is shown once.
func (s *Handler) takeFlash(c echo.Context) string {
	ck, err := c.Cookie(flashCookie)
	if err != nil || ck.Value == "" {
		return ""
	}
	s.setCookie(c, flashCookie, "", -1)
	// Signed by done: a cookie planted by another site of the domain, or on
	// plain HTTP, shows nothing.
	msg, ok := s.opts.Signer.Verify(c.Request().Context(), "flash", ck.Value)
	if !ok || len(msg) > 300 {
		return ""
	}
	return msg
}

// formBodyLimit bounds every console request body.
const formBodyLimit = "64K"

// readForm parses a POST's form body ahead of the console's checks, so that
// a body the server's deadline cut off (web.bodyDeadline) is a 408, and one
// over formBodyLimit a 413, rather than an empty form refused as forged.
func readForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method != http.MethodPost {
			return next(c)
		}
		err := c.Request().ParseForm()
		var he *echo.HTTPError
		switch {
		case err == nil:
			return next(c)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return echo.NewHTTPError(http.StatusRequestTimeout, "the request body did not arrive in time")
		case errors.As(err, &he):
			return he // BodyLimit's 413
		}
		return request.BadRequest("The form could not be read: " + err.Error())
	}
}

// postForm is the request's form body only: never the query string, where a
// token or a value would end up in logs, browser history and Referer headers.
func postForm(c echo.Context) url.Values {
	if err := c.Request().ParseForm(); err != nil {
		return url.Values{}
	}
	return c.Request().PostForm
}

// formValue is one field of the form body (see postForm).
func formValue(c echo.Context, name string) string { return postForm(c).Get(name) }

// csrfToken is the form's token, from the body or the X-CSRF-Token header;
// never from the query string.
func csrfToken(c echo.Context) string {
	if t := formValue(c, "csrf"); t != "" {
		return t
	}
	return c.Request().Header.Get("X-CSRF-Token")
}
