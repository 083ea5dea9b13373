package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"podium/access"
	"podium/board"
)

func keyOf(c echo.Context) access.APIKey { k, _ := c.Get("apikey").(access.APIKey); return k }

// requireKey authenticates "Authorization: Bearer <key>" and applies the
// per-key rate limit.
func (s *Handler) requireKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.authenticate(c); err != nil {
			return err
		}
		return next(c)
	}
}

// authenticate checks the request's API key (a key that may write), and
// its rate, and keeps the key for the handler (keyOf).
func (s *Handler) authenticate(c echo.Context) error {
	h := c.Request().Header.Get("Authorization")
	secret, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || secret == "" {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="podium"`)
		return apiErr(401, "unauthorized", "send an API key as Authorization: Bearer <key>")
	}
	key, err := s.opts.Keys.Authenticate(c.Request().Context(), strings.TrimSpace(secret))
	if errors.Is(err, access.ErrBadKey) {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="podium", error="invalid_token"`)
		return apiErr(401, "unauthorized", "that API key is not valid (revoked or mistyped)")
	}
	if err != nil {
		return err
	}
	okRate, retry, err := s.opts.Limiter.Allow(c.Request().Context(), "key:"+key.ID, s.opts.KeyLimit)
	if err != nil {
		return err
	}
	if !okRate {
		ae := apiErr(429, "rate_limited", "this API key is over %d requests a minute; retry after %ds", s.opts.KeyLimit, int(retry.Seconds()+0.999))
		ae.retry = retry
		return ae
	}
	if key.ReadOnly {
		return apiErr(403, "read_only_key", "API key %q is read-only: it reads private boards; this needs a key that may write", key.Name)
	}
	c.Set("apikey", key)
	return nil
}

// limitAddr applies the per-client-address rate limit to every API request.
func (s *Handler) limitAddr(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ok, retry, err := s.opts.Limiter.Allow(c.Request().Context(), "addr:"+c.RealIP(), s.opts.AddrLimit)
		if err != nil {
			return err
		}
		if !ok {
			ae := apiErr(429, "rate_limited", "too many requests from %s: over %d a minute; retry after %ds", c.RealIP(), s.opts.AddrLimit, int(retry.Seconds()+0.999))
			ae.retry = retry
			return ae
		}
		return next(c)
	}
}

// boardToWrite loads the board in the path (through the gate, as every
// read of a board is) for a key that may write to it.
func (s *Handler) boardToWrite(c echo.Context) (board.Board, error) {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return b, err
	}
	return b, scoped(c, b.ID)
}

// scoped refuses a key that may not write to the board in the path.
func scoped(c echo.Context, boardID string) error {
	if k := keyOf(c); !k.Allows(boardID) {
		return apiErr(403, "forbidden", "API key %q may write only to board %q", k.Name, k.Board)
	}
	return nil
}

func allBoards(c echo.Context) error {
	if k := keyOf(c); !k.AllBoards() {
		return apiErr(403, "forbidden", "API key %q is scoped to board %q; managing boards needs a key for all boards", k.Name, k.Board)
	}
	return nil
}

func actorOfKey(k access.APIKey) string { return "key:" + k.Name + " (" + k.ID + ")" }

// Routes mounts the API under /api/v1.
func (s *Handler) Routes(e *echo.Echo) {
	g := e.Group("/api/v1", middleware.BodyLimit(apiBodyLimit), s.limitAddr)
	read := []string{http.MethodGet, http.MethodHead} // HEAD: as GET, without the body
	g.Match(read, "/openapi.json", s.openAPI)
	g.Match(read, "/boards", s.apiBoards)
	g.Match(read, "/boards/:board", s.apiBoard)
	g.Match(read, "/boards/:board/entries", s.apiEntries)
	if s.opts.Export != nil {
		g.GET("/boards/:board/export", s.apiExport)
	}
	g.Match(read, "/boards/:board/members/:member", s.apiMember)
	g.Match(read, "/boards/:board/members/:member/around", s.apiAround)
	g.Match(read, "/boards/:board/ranks", s.apiRanks)
	g.POST("/boards/:board/ranks", s.apiRanks) // a read: a list too long for a URL
	g.Match(read, "/boards/:board/members/:member/friends", s.apiFriends)
	g.Match(read, "/boards/:board/members/:member/friends/ranks", s.apiFriendsRanks)
	g.PUT("/boards/:board/members/:member/friends", s.apiSetFriends, s.requireKey)
	g.Match(read, "/boards/:board/race", s.apiRace)
	g.Match(read, "/boards/:board/teams", s.apiTeams)
	g.Match(read, "/boards/:board/teams/:team", s.apiTeam)
	g.PUT("/boards/:board/members/:member/team", s.apiSetTeam, s.requireKey)
	g.PUT("/boards/:board/members/:member/segments", s.apiSetSegments, s.requireKey)
	g.Match(read, "/boards/:board/leagues", s.apiLeagues)
	g.Match(read, "/boards/:board/leagues/:tier/:cohort", s.apiCohort)
	g.Match(read, "/boards/:board/members/:member/league", s.apiMemberLeague)
	if s.opts.Members != nil {
		g.GET("/boards/:board/members/:member/data", s.apiMemberData) // the gate first, then the key: a read of the board
		g.POST("/boards/:board/members/:member/erase", s.apiEraseMember, s.requireKey)
	}
	if s.opts.Hooks != nil {
		g.GET("/boards/:board/hooks", s.apiHooks, s.requireKey)
		g.POST("/boards/:board/hooks", s.apiCreateHook, s.requireKey)
		g.GET("/boards/:board/hooks/:id", s.apiHook, s.requireKey)
		g.PATCH("/boards/:board/hooks/:id", s.apiPatchHook, s.requireKey)
		g.DELETE("/boards/:board/hooks/:id", s.apiDeleteHook, s.requireKey)
		g.POST("/boards/:board/hooks/:id/secret", s.apiRotateHook, s.requireKey)
		g.POST("/boards/:board/hooks/:id/test", s.apiTestHook, s.requireKey)
	}
	g.POST("/boards/:board/scores", s.apiSubmit, s.requireKey)
	g.POST("/boards/:board/sessions", s.apiStartSession, s.requireKey)
	g.DELETE("/boards/:board/members/:member", s.apiRemoveMember, s.requireKey)
	g.POST("/boards", s.apiCreateBoard, s.requireKey)
	g.PUT("/boards/:board", s.apiUpdateBoard, s.requireKey)
	g.DELETE("/boards/:board", s.apiDeleteBoard, s.requireKey)
	g.PUT("/boards/:board/freeze", s.apiFreeze, s.requireKey)
	g.DELETE("/boards/:board/freeze", s.apiUnfreeze, s.requireKey)
	g.Any("/*", func(c echo.Context) error {
		req := c.Request()
		if allow := allowedMethods(e, echo.GetPath(req)); len(allow) > 0 {
			c.Response().Header().Set("Allow", strings.Join(allow, ", "))
			return apiErr(405, "method_not_allowed", "%s is not served on %s; it answers %s", req.Method, req.URL.Path, strings.Join(allow, ", "))
		}
		return apiErr(404, "not_found", "no API route %s %s", req.Method, req.URL.Path)
	})
}

// catchAll is the route of the API's answer to paths and methods it does
// not serve.
const catchAll = "/api/v1/*"

// allowedMethods lists the methods the API serves on path: a request with
// another one is 405 with these in Allow, not 404 (the catch-all route,
// which answers every method, would otherwise take it).
func allowedMethods(e *echo.Echo, path string) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		c := e.NewContext(nil, nil)
		e.Router().Find(m, path, c)
		if r := c.Path(); r != "" && r != catchAll {
			out = append(out, m)
		}
	}
	return out
}
