// Package signin is sign-in with the organisation: OpenID Connect's
// authorization code flow (with PKCE and a nonce) against the provider
// OIDC_ISSUER names, through coreos/go-oidc and golang.org/x/oauth2.
//
// Whoever the provider vouches for gets a session like the console's (the
// same cookie, site-wide): a person whose verified address is a console
// account's name is signed in as that account; anyone else is signed in as
// themselves, "oidc:<address>", with no console, and reads the private
// boards whose allow-list admits their address's domain or one of their
// groups (access.AllowLists, checked by request.Gate).
package signin

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"podium/access"
	"podium/web/request"
	"podium/web/templates"
)

// Config is the provider and this site's client at it.
type Config struct {
	Issuer, ClientID, ClientSecret string
	Scopes                         []string // "openid" first
	GroupsClaim                    string   // the ID token's claim that lists groups
	// AllowUnverified admits an address whose token does not say
	// email_verified: true (a provider that never sends the claim, and
	// lets nobody choose an address it has not checked).
	AllowUnverified bool
	// RedirectURL is where the provider sends people back:
	// BASE_URL + CallbackPath (register it at the provider); "": this
	// request's own host.
	RedirectURL string
}

// Enabled reports whether an issuer is configured.
func (c Config) Enabled() bool { return c.Issuer != "" }

// Options are the handler's dependencies.
type Options struct {
	Config     Config
	Sessions   *access.Sessions
	Accounts   *access.Accounts
	Signer     *access.Signer
	TrustProxy bool
	// HTTP is the client that talks to the provider (a bounded timeout);
	// nil: one with a 15-second timeout.
	HTTP   *http.Client
	Logger *slog.Logger
}

// Paths of the flow.
const (
	LoginPath    = "/auth/login"
	CallbackPath = "/auth/callback"
	LogoutPath   = "/auth/logout"
	stateCookie  = "podium_oidc"
	statePurpose = "oidc-state"
	stateTTL     = 10 * time.Minute
)

// Handler runs the flow.
type Handler struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	provider *oidc.Provider // found once, at the first sign-in that needs it
}

// New makes the handler.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Timeout: 15 * time.Second}
	}
	return &Handler{opts: opts, log: opts.Logger}
}

// Routes mounts the flow under /auth.
func (h *Handler) Routes(e *echo.Echo) {
	g := e.Group("/auth", noStore)
	g.GET("/login", h.login)
	g.GET("/callback", h.callback)
	g.POST("/logout", h.logout)
}

func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		c.Response().Header().Set("Referrer-Policy", "no-referrer") // the code and state stay here
		return next(c)
	}
}

// discover finds the provider's endpoints and keys, once; a failure is
// tried again at the next sign-in, so a provider down at start does not
// keep anyone out once it is back.
func (h *Handler) discover() (*oidc.Provider, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.provider != nil {
		return h.provider, nil
	}
	// Not the request's context: the provider keeps it to fetch new keys
	// later, long after this request.
	ctx := oidc.ClientContext(context.Background(), h.opts.HTTP)
	p, err := oidc.NewProvider(ctx, h.opts.Config.Issuer)
	if err != nil {
		return nil, err
	}
	h.provider = p
	return p, nil
}

func (h *Handler) oauth(c echo.Context, p *oidc.Provider) *oauth2.Config {
	redirect := h.opts.Config.RedirectURL
	if redirect == "" {
		scheme := "http"
		if h.secure(c) {
			scheme = "https"
		}
		redirect = scheme + "://" + c.Request().Host + CallbackPath
	}
	return &oauth2.Config{ClientID: h.opts.Config.ClientID, ClientSecret: h.opts.Config.ClientSecret,
		Endpoint: p.Endpoint(), RedirectURL: redirect, Scopes: h.opts.Config.Scopes}
}

func (h *Handler) secure(c echo.Context) bool {
	return c.Request().TLS != nil || (h.opts.TrustProxy && strings.EqualFold(c.Request().Header.Get("X-Forwarded-Proto"), "https"))
}

// flowState is what the browser carries, signed, from the login to the
// callback: the state and nonce the provider must echo, the PKCE verifier,
// and where to go after.
type flowState struct {
	State, Nonce, Verifier, Next string
}

// login sends the browser to the provider.
func (h *Handler) login(c echo.Context) error {
	p, err := h.discover()
	if err != nil {
		h.log.Error("organisation sign-in: discovery failed", slog.String("issuer", h.opts.Config.Issuer), slog.Any("error", err))
		return &request.Problem{Status: http.StatusServiceUnavailable, Code: "signin_unavailable", Title: "Sign-in unavailable",
			Message: "Your organisation's sign-in cannot be reached just now. Try again in a minute.", Links: []templates.Link{request.HomeLink}}
	}
	st := flowState{State: oauth2.GenerateVerifier(), Nonce: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier(), Next: LocalPath(c.QueryParam("next"))}
	raw, _ := json.Marshal(st)
	signed, err := h.opts.Signer.Sign(c.Request().Context(), statePurpose, string(raw), stateTTL)
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: stateCookie, Value: signed, Path: "/auth", MaxAge: int(stateTTL.Seconds()),
		HttpOnly: true, Secure: h.secure(c), SameSite: http.SameSiteLaxMode})
	to := h.oauth(c, p).AuthCodeURL(st.State, oidc.Nonce(st.Nonce), oauth2.S256ChallengeOption(st.Verifier))
	return c.Redirect(http.StatusSeeOther, to)
}

// LocalPath is next if it is a path of this site, or "/": a sign-in never
// ends on another site (an open redirect would lend it this site's name).
func LocalPath(next string) string {
	if next == "" || len(next) > 2048 || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	return next
}

// refused is a sign-in that did not happen, with a way to start again.
func refused(status int, title, msg, next string) error {
	return &request.Problem{Status: status, Code: "signin_failed", Title: title, Message: msg,
		Links: []templates.Link{{Label: "Sign in again", Href: LoginPath + "?next=" + url.QueryEscape(next)}, request.HomeLink}}
}

// callback takes the provider's answer.
func (h *Handler) callback(c echo.Context) error {
	st, err := h.takeState(c)
	if err != nil {
		return refused(http.StatusBadRequest, "Sign-in expired", "This sign-in began more than ten minutes ago or in another browser. Start again.", "/")
	}
	// The state first: an answer that is not to this browser's sign-in,
	// error or not, says nothing (its words may be anyone's).
	if subtle.ConstantTimeCompare([]byte(c.QueryParam("state")), []byte(st.State)) != 1 {
		return refused(http.StatusBadRequest, "Sign-in expired", "This answer does not belong to the sign-in this browser began. Start again.", st.Next)
	}
	if e := c.QueryParam("error"); e != "" {
		msg := "Your organisation did not sign you in (" + access.LogSafe(e) + ")."
		if d := c.QueryParam("error_description"); d != "" {
			msg = "Your organisation did not sign you in: " + access.LogSafe(d)
		}
		return refused(http.StatusUnauthorized, "Not signed in", msg, st.Next)
	}
	id, err := h.identify(c, st)
	if err != nil {
		var p *request.Problem
		if errors.As(err, &p) {
			return p
		}
		h.log.Warn("organisation sign-in refused", slog.Any("error", err))
		return refused(http.StatusUnauthorized, "Not signed in", "Your organisation's answer could not be checked, so you are not signed in. Start again; if it keeps happening, tell whoever runs this site.", st.Next)
	}
	return h.startSession(c, id, st.Next)
}

// takeState reads and clears the signed flow state: it serves one answer.
func (h *Handler) takeState(c echo.Context) (flowState, error) {
	var st flowState
	ck, err := c.Cookie(stateCookie)
	if err != nil {
		return st, err
	}
	c.SetCookie(&http.Cookie{Name: stateCookie, Value: "", Path: "/auth", MaxAge: -1, HttpOnly: true, Secure: h.secure(c), SameSite: http.SameSiteLaxMode})
	raw, ok := h.opts.Signer.Verify(c.Request().Context(), statePurpose, ck.Value)
	if !ok {
		return st, errors.New("the sign-in state is not ours or has expired")
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil || st.State == "" {
		return st, errors.New("the sign-in state is unreadable")
	}
	st.Next = LocalPath(st.Next)
	return st, nil
}

// identify exchanges the code and checks the ID token: signature, issuer,
// audience, expiry (go-oidc) and the nonce; then reads who it names.
func (h *Handler) identify(c echo.Context, st flowState) (access.Identity, error) {
	p, err := h.discover()
	if err != nil {
		return access.Identity{}, err
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(c.Request().Context(), h.opts.HTTP), 20*time.Second)
	defer cancel()
	tok, err := h.oauth(c, p).Exchange(ctx, c.QueryParam("code"), oauth2.VerifierOption(st.Verifier))
	if err != nil {
		return access.Identity{}, fmt.Errorf("code exchange: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return access.Identity{}, errors.New("the token answer holds no id_token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: h.opts.Config.ClientID}).Verify(ctx, raw)
	if err != nil {
		return access.Identity{}, fmt.Errorf("ID token: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(st.Nonce)) != 1 {
		return access.Identity{}, errors.New("ID token: the nonce is not this sign-in's")
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return access.Identity{}, fmt.Errorf("ID token claims: %w", err)
	}
	return h.identity(claims, st.Next)
}

// identity reads the address and groups of an ID token's claims.
func (h *Handler) identity(claims map[string]any, next string) (access.Identity, error) {
	email, _ := claims["email"].(string)
	email = lowerASCII(strings.TrimSpace(email))
	switch {
	case email == "" || !strings.Contains(email, "@") || !usable(email):
		return access.Identity{}, refused(http.StatusForbidden, "No email address", "Your organisation's sign-in did not give your email address, which this site needs to know who you are. Whoever runs this site should ask for the \"email\" scope (OIDC_SCOPES).", next)
	case len(email) > access.MaxEmail:
		return access.Identity{}, refused(http.StatusForbidden, "Address too long", "Your email address is longer than any this site keeps.", next)
	case !verified(claims["email_verified"], h.opts.Config.AllowUnverified):
		return access.Identity{}, refused(http.StatusForbidden, "Address not verified", "Your organisation's sign-in did not say that your email address is verified, so it cannot admit you to any board. Verify it there and sign in again.", next)
	}
	id := access.Identity{Email: email}
	switch g := claims[h.opts.Config.GroupsClaim].(type) {
	case []any:
		for _, v := range g {
			if s, ok := v.(string); ok {
				id.Groups = append(id.Groups, s)
			}
		}
	case string:
		id.Groups = []string{g}
	}
	return id, nil
}

// lowerASCII lower-cases A-Z only. strings.ToLower would fold other
// characters into ASCII (the Kelvin sign K into k, İ into i), so that a
// verified address someone else holds became a console user's name.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// usable reports whether an address is text without spaces or control
// characters (an internationalised one is kept as it is, and names no
// account: account names are ASCII).
func usable(email string) bool {
	if !utf8.ValidString(email) {
		return false
	}
	for _, r := range email {
		if r <= ' ' || r == 0x7f || unicode.IsControl(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// verified reads email_verified: true, or absent when the site allows it
// (a provider that never sends the claim); never false.
func verified(claim any, allowAbsent bool) bool {
	switch claim {
	case true, "true":
		return true
	case nil:
		return allowAbsent
	}
	return false
}

// startSession signs the person in: as the console account named by their
// address when there is one, else as themselves with no console.
func (h *Handler) startSession(c echo.Context, id access.Identity, next string) error {
	ctx := c.Request().Context()
	user := access.OrgPrefix + id.Email
	if len(id.Email) <= access.MaxUserLen {
		switch _, err := h.opts.Accounts.Get(ctx, id.Email); {
		case err == nil:
			user = id.Email
		case !errors.Is(err, access.ErrNotFound):
			return err
		}
	}
	token, err := h.opts.Sessions.CreateFor(ctx, user, id, c.RealIP(), c.Request().UserAgent())
	if err != nil {
		return err
	}
	request.SetSessionCookie(c, token, int(h.opts.Sessions.Absolute.Seconds()), h.secure(c))
	h.log.Info("signed in with the organisation", slog.String("user", user), slog.Int("groups", len(id.Groups)))
	return c.Redirect(http.StatusSeeOther, next)
}

// crossOrigin refuses a sign-out sent from another site.
var crossOrigin = http.NewCrossOriginProtection()

// logout ends the session of a person signed in on the public pages.
func (h *Handler) logout(c echo.Context) error {
	if err := crossOrigin.Check(c.Request()); err != nil {
		return request.Forbidden("Refused", "This sign-out was sent from another site.")
	}
	if ck, err := c.Cookie(request.SessionCookie); err == nil {
		if err := h.opts.Sessions.Delete(context.WithoutCancel(c.Request().Context()), ck.Value); err != nil {
			return err
		}
	}
	request.SetSessionCookie(c, "", -1, h.secure(c))
	return c.Redirect(http.StatusSeeOther, "/")
}
