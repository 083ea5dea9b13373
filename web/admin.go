package web

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/web/templates"
)

const (
	sessionCookie = "podium_session"
	loginCookie   = "podium_login"
)

// adminRoutes mounts the console under /admin.
func (s *Server) adminRoutes() {
	g := s.echo.Group("/admin", s.adminHeaders, s.sameOrigin)
	g.GET("/login", s.loginPage)
	g.POST("/login", s.login)
	a := g.Group("", s.requireSession, s.checkCSRF)
	a.POST("/logout", s.logout)
	a.GET("", s.adminBoards)
	a.GET("/", s.adminBoards)
	a.GET("/boards/new", s.boardForm)
	a.POST("/boards/new", s.createBoard)
	a.GET("/boards/:board/edit", s.boardForm)
	a.POST("/boards/:board/edit", s.updateBoard)
	a.GET("/boards/:board/delete", s.deleteBoardPage)
	a.POST("/boards/:board/delete", s.deleteBoard)
	a.GET("/boards/:board", s.manageBoard)
	a.POST("/boards/:board/score", s.adjustScore)
	a.POST("/boards/:board/remove", s.removeMember)
	a.POST("/boards/:board/reset", s.resetPeriod)
	a.POST("/boards/:board/rename", s.renameMember)
	a.GET("/audit", s.auditPage)
	a.GET("/keys", s.keysPage)
	a.POST("/keys", s.createKey)
	a.POST("/keys/:id/revoke", s.revokeKey)
	a.GET("/users", s.usersPage)
	a.POST("/users", s.addUser)
	a.POST("/users/:user/delete", s.removeUser)
}

// adminHeaders: admin pages are never cached (and, like every page but the
// widget, never framed).
func (s *Server) adminHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return next(c)
	}
}

// sameOrigin refuses state-changing requests from other sites, by the
// browser's own Origin and Sec-Fetch-Site headers.
func (s *Server) sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			return next(c)
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			return &pageError{status: 403, title: "Refused", message: "This form was sent from another site."}
		}
		if o := r.Header.Get("Origin"); o != "" && o != "null" {
			u, err := url.Parse(o)
			if err != nil || !strings.EqualFold(u.Host, r.Host) {
				return &pageError{status: 403, title: "Refused", message: "This form was sent from another site (" + o + ")."}
			}
		}
		return next(c)
	}
}

func (s *Server) secure(c echo.Context) bool {
	return c.Request().TLS != nil || (s.opts.TrustProxy && c.Request().Header.Get("X-Forwarded-Proto") == "https")
}

func (s *Server) setCookie(c echo.Context, name, value string, maxAge int) {
	c.SetCookie(&http.Cookie{Name: name, Value: value, Path: "/admin", MaxAge: maxAge, HttpOnly: true,
		Secure: s.secure(c), SameSite: http.SameSiteLaxMode})
}

func session(c echo.Context) access.Session { s, _ := c.Get("session").(access.Session); return s }

// requireSession lets signed-in admins through and sends others to log in.
func (s *Server) requireSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		sess, err := s.currentSession(c)
		if err != nil {
			return err
		}
		if sess != nil {
			c.Set("session", *sess)
			return next(c)
		}
		if c.Request().Method != http.MethodGet {
			return &pageError{status: 403, title: "Signed out", message: "Your session has ended; sign in and send the form again.",
				links: []templates.Link{{Label: "Sign in", Href: "/admin/login"}}}
		}
		return c.Redirect(http.StatusSeeOther, "/admin/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
	}
}

// currentSession is the request's valid session, or nil. The session of an
// admin who has since been removed is ended here.
func (s *Server) currentSession(c echo.Context) (*access.Session, error) {
	ck, err := c.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	ctx := c.Request().Context()
	sess, err := s.admin.Sessions.Get(ctx, ck.Value)
	if errors.Is(err, access.ErrNoSession) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	exists, err := s.admin.Accounts.Exists(ctx, sess.User)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, s.admin.Sessions.Delete(ctx, ck.Value)
	}
	return &sess, nil
}

// checkCSRF requires the session's token on every state-changing form.
func (s *Server) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodPost && !session(c).CheckCSRF(c.FormValue("csrf")) {
			return &pageError{status: 403, title: "Refused", message: "This form is missing its security token, or it has expired. Reload the page and try again."}
		}
		return next(c)
	}
}

func (s *Server) nav(c echo.Context, active string) templates.AdminNav {
	sess := session(c)
	return templates.AdminNav{User: sess.User, CSRF: sess.CSRF(), Active: active, Flash: c.QueryParam("done")}
}

func (s *Server) actor(c echo.Context) string { return "admin:" + session(c).User }

// audit writes an entry; a failure is logged loudly, as the change is made.
func (s *Server) audit(c echo.Context, e audit.Entry) {
	e.Actor = s.actor(c)
	s.record(c, e)
}

// done redirects after a change, with a message the next page shows.
func done(c echo.Context, to, msg string) error {
	sep := "?"
	if strings.Contains(to, "?") {
		sep = "&"
	}
	return c.Redirect(http.StatusSeeOther, to+sep+"done="+url.QueryEscape(msg))
}

func safeNext(next string) string {
	if !strings.HasPrefix(next, "/admin") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/admin"
	}
	return next
}

func (s *Server) loginPage(c echo.Context) error {
	token := randomHex()
	s.setCookie(c, loginCookie, token, 3600)
	return render(c, 200, templates.AdminLogin(templates.LoginView{CSRF: token, Next: safeNext(c.QueryParam("next"))}))
}

func (s *Server) login(c echo.Context) error {
	ctx := c.Request().Context()
	user, pass := strings.TrimSpace(strings.ToLower(c.FormValue("user"))), c.FormValue("password")
	v := templates.LoginView{User: user, Next: safeNext(c.FormValue("next"))}
	ck, err := c.Cookie(loginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(c.FormValue("csrf"))) != 1 {
		return &pageError{status: 403, title: "Refused", message: "The sign-in form expired or was sent from elsewhere. Open it again.",
			links: []templates.Link{{Label: "Sign in", Href: "/admin/login"}}}
	}
	v.CSRF = ck.Value
	addr := c.RealIP()
	if wait, err := s.admin.Limiter.LoginLocked(ctx, user, addr); err != nil {
		return err
	} else if wait > 0 {
		c.Response().Header().Set("Retry-After", itoa(int(wait.Seconds()+1)))
		v.Error = "Too many failed attempts. Try again in " + (wait.Truncate(time.Second) + time.Second).String() + "."
		return render(c, http.StatusTooManyRequests, templates.AdminLogin(v))
	}
	if err := s.admin.Accounts.Verify(ctx, user, pass); err != nil {
		if !errors.Is(err, access.ErrBadCredentials) {
			return err
		}
		delay := s.admin.Limiter.LoginFailed(ctx, user, addr)
		s.log.Warn("admin login failed", slog.String("user", access.LogSafe(user)), slog.String("remote", access.LogSafe(addr)))
		select { // slow down guessing
		case <-time.After(delay):
		case <-ctx.Done():
		}
		v.Error = "Wrong user name or password."
		return render(c, http.StatusUnauthorized, templates.AdminLogin(v))
	}
	s.admin.Limiter.LoginSucceeded(ctx, user, addr)
	token, err := s.admin.Sessions.Create(ctx, user, addr, c.Request().UserAgent())
	if err != nil {
		return err
	}
	s.setCookie(c, sessionCookie, token, int(s.admin.Sessions.Absolute.Seconds()))
	s.setCookie(c, loginCookie, "", -1)
	s.log.Info("admin signed in", slog.String("user", user), slog.String("remote", addr))
	return c.Redirect(http.StatusSeeOther, v.Next)
}

func (s *Server) logout(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil {
		if err := s.admin.Sessions.Delete(context.WithoutCancel(c.Request().Context()), ck.Value); err != nil {
			return err
		}
	}
	s.setCookie(c, sessionCookie, "", -1)
	return c.Redirect(http.StatusSeeOther, "/admin/login?done="+url.QueryEscape("Signed out."))
}
