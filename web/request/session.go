package request

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// SetSessionCookie sets (maxAge > 0) or clears (maxAge < 0) the session
// cookie, for the console's sign-in and the organisation's alike:
// site-wide, HttpOnly, SameSite=Lax, Secure over TLS. It also clears the
// cookie of path /admin that versions before board roles set: a browser
// sends that one to the console ahead of the site-wide one, so a stale one
// would keep the console signed in as someone else after a sign-in or a
// sign-out.
func SetSessionCookie(c echo.Context, token string, maxAge int, secure bool) {
	c.SetCookie(&http.Cookie{Name: SessionCookie, Value: token, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteLaxMode})
	c.SetCookie(&http.Cookie{Name: SessionCookie, Value: "", Path: "/admin", MaxAge: -1, HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteLaxMode})
}
