package admin

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/web/request"
	"podium/web/templates"
)

func safeNext(next string) string {
	if !strings.HasPrefix(next, "/admin") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/admin"
	}
	return next
}

func (s *Handler) loginPage(c echo.Context) error {
	token := randomHex()
	s.setCookie(c, loginCookie, token, 3600)
	v := templates.LoginView{CSRF: token, Next: safeNext(c.QueryParam("next")), Flash: s.takeFlash(c)}
	if s.opts.OrgSignIn {
		v.OrgSignIn = "/auth/login?next=" + url.QueryEscape(v.Next)
	}
	return request.Render(c, 200, templates.AdminLogin(v))
}

func (s *Handler) login(c echo.Context) error {
	ctx := c.Request().Context()
	user, pass := strings.TrimSpace(strings.ToLower(formValue(c, "user"))), formValue(c, "password")
	v := templates.LoginView{User: user, Next: safeNext(formValue(c, "next"))}
	if len(user) > access.MaxUserLen {
		v.User = "" // no admin has such a name; do not echo it back
	}
	ck, err := c.Cookie(loginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(csrfToken(c))) != 1 {
		return request.Forbidden("Refused", "The sign-in form expired or was sent from elsewhere. Open it again.",
			templates.Link{Label: "Sign in", Href: "/admin/login"})
	}
	v.CSRF = ck.Value
	addr := c.RealIP()
	// One attempt at a time per account and address, taken before the limits
	// are read, so that no parallel request reads them before this one counts.
	release, ok, err := s.opts.Limiter.LoginStart(ctx, user, addr)
	if err != nil {
		return err
	}
	defer release()
	if !ok {
		c.Response().Header().Set("Retry-After", "1")
		v.Error = "Another sign-in to this account from your address is under way. Try again in a moment."
		return request.Render(c, http.StatusTooManyRequests, templates.AdminLogin(v))
	}
	locked := s.opts.Limiter.LoginLocked
	if s.knownDevice(c, user) {
		locked = s.opts.Limiter.LoginLockedKnown // the account-wide delay is for strangers
	}
	if wait, err := locked(ctx, user, addr); err != nil {
		return err
	} else if wait > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+1)))
		v.Error = "Too many failed attempts. Try again in " + (wait.Truncate(time.Second) + time.Second).String() + "."
		return request.Render(c, http.StatusTooManyRequests, templates.AdminLogin(v))
	}
	if err := s.opts.Accounts.Verify(ctx, user, pass); err != nil {
		if !errors.Is(err, access.ErrBadCredentials) {
			return err
		}
		delay := s.opts.Limiter.LoginFailed(ctx, user, addr)
		s.log.Warn("admin login failed", slog.String("user", access.LogSafe(user)), slog.String("remote", access.LogSafe(addr)))
		select { // slow down guessing
		case <-time.After(delay):
		case <-ctx.Done():
		}
		v.Error = "Wrong user name or password."
		return request.Render(c, http.StatusUnauthorized, templates.AdminLogin(v))
	}
	s.opts.Limiter.LoginSucceeded(ctx, user, addr)
	token, err := s.opts.Sessions.Create(ctx, user, addr, c.Request().UserAgent())
	if err != nil {
		return err
	}
	request.SetSessionCookie(c, token, int(s.opts.Sessions.Absolute.Seconds()), s.secure(c))
	s.setCookie(c, loginCookie, "", -1)
	if stamp, err := s.opts.Accounts.Stamp(ctx, user); err == nil && stamp != "" {
		if device, err := s.opts.Signer.Sign(ctx, "device", user+"\x00"+stamp, deviceTTL); err == nil {
			s.setCookie(c, deviceCookie, device, int(deviceTTL.Seconds()))
		}
	}
	s.log.Info("admin signed in", slog.String("user", user), slog.String("remote", addr))
	return c.Redirect(http.StatusSeeOther, v.Next)
}

func (s *Handler) logout(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil {
		if err := s.opts.Sessions.Delete(context.WithoutCancel(c.Request().Context()), ck.Value); err != nil {
			return err
		}
	}
	request.SetSessionCookie(c, "", -1, s.secure(c))
	return s.done(c, "/admin/login", "Signed out.")
}

// deviceTTL is how long a browser that signed in stays known to the account.
const deviceTTL = 365 * 24 * time.Hour

// knownDevice reports whether this browser signed in to user before, with
// the account's current password: it holds a device cookie the server
// signed for that account.
func (s *Handler) knownDevice(c echo.Context, user string) bool {
	ck, err := c.Cookie(deviceCookie)
	if err != nil || ck.Value == "" {
		return false
	}
	v, ok := s.opts.Signer.Verify(c.Request().Context(), "device", ck.Value)
	who, stamp, _ := strings.Cut(v, "\x00")
	if !ok || who != user || stamp == "" {
		return false
	}
	// Only for the password it signed in with: a changed password, or an
	// admin removed and added again, makes old devices strangers.
	cur, err := s.opts.Accounts.Stamp(c.Request().Context(), user)
	return err == nil && cur == stamp
}
