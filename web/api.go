package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"podium/access"
	"podium/audit"
	"podium/board"
)

// Writer is what the API and the admin console change boards with.
type Writer interface {
	Store
	CreateBoard(ctx context.Context, b board.Board) (board.Board, error)
	UpdateBoard(ctx context.Context, b board.Board) (board.Board, error)
	DeleteBoard(ctx context.Context, id string) error
	SubmitBatch(ctx context.Context, boardID string, subs []board.Submission, batchKey string) ([]board.Result, error)
	RemoveMember(ctx context.Context, boardID, member string, p *board.Period) ([]board.Removed, error)
	ResetPeriod(ctx context.Context, boardID string, p board.Period) (int, error)
	SetName(ctx context.Context, boardID, member, name string) (string, error)
	Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error)
}

// Admin is what changes need besides the store: who may act, and the record.
type Admin struct {
	Store    Writer
	Accounts *access.Accounts
	Sessions *access.Sessions
	Keys     *access.Keys
	Limiter  *access.Limiter
	Audit    *audit.Log
	// Requests per minute allowed per API key and per client address.
	KeyLimit, AddrLimit int
}

// apiError is a JSON error: {"error": {"code", "message", "field"}}.
type apiError struct {
	Status  int          `json:"-"`
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Field   string       `json:"field,omitempty"`
	Fields  []fieldIssue `json:"fields,omitempty"`
	retry   time.Duration
}

type fieldIssue struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func apiErr(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// apiErrorOf maps any error to the JSON error a client gets.
func apiErrorOf(err error) *apiError {
	var ae *apiError
	var he *echo.HTTPError
	var be *board.BatchError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge:
		return tooLarge() // BodyLimit, by Content-Length
	case errors.As(err, &he):
		code := map[int]string{404: "not_found", 405: "method_not_allowed", 429: "rate_limited"}[he.Code]
		if code == "" {
			code = strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_")
		}
		return apiErr(he.Code, code, "%v", he.Message)
	case errors.Is(err, board.ErrNotFound):
		return apiErr(404, "not_found", "%s", err.Error())
	case errors.Is(err, board.ErrExists):
		return apiErr(409, "exists", "%s", err.Error())
	case errors.Is(err, board.ErrPeriodDisabled), errors.Is(err, board.ErrInvalidPeriod):
		return apiErr(404, "period_not_found", "%s", reason(err))
	case storeUnavailable(err):
		ae := apiErr(503, "unavailable", apiStoreDown)
		ae.retry = storeRetry
		return ae
	}
	fes := board.FieldErrors(err)
	if len(fes) > 0 {
		ae := apiErr(422, "invalid", "%s", fes[0].Error())
		ae.Field = fes[0].Field
		if errors.As(err, &be) {
			ae.Field = fmt.Sprintf("scores[%d].%s", be.Index, fes[0].Field)
			ae.Message = fmt.Sprintf("item %d: %s", be.Index, fes[0].Error())
		}
		for _, fe := range fes {
			ae.Fields = append(ae.Fields, fieldIssue{Field: fe.Field, Message: fe.Message})
		}
		if errors.Is(err, board.ErrImmutable) {
			ae.Status, ae.Code = 409, "immutable"
		}
		return ae
	}
	return nil
}

func (s *Server) apiError(err error, c echo.Context) {
	ae := apiErrorOf(err)
	if ae == nil {
		s.log.Error("api request failed", slog.String("method", c.Request().Method), slog.String("uri", c.Request().RequestURI), slog.Any("error", err))
		ae = apiErr(500, "internal", "the server could not finish this request; it has been logged")
	}
	if ae.retry > 0 {
		c.Response().Header().Set("Retry-After", retryAfter(ae.retry))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	_ = c.JSON(ae.Status, map[string]any{"error": ae})
}

func keyOf(c echo.Context) access.APIKey { k, _ := c.Get("apikey").(access.APIKey); return k }

// requireKey authenticates "Authorization: Bearer <key>" and applies the
// per-key rate limit.
func (s *Server) requireKey(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get("Authorization")
		secret, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || secret == "" {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="podium"`)
			return apiErr(401, "unauthorized", "send an API key as Authorization: Bearer <key>")
		}
		key, err := s.admin.Keys.Authenticate(c.Request().Context(), strings.TrimSpace(secret))
		if errors.Is(err, access.ErrBadKey) {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="podium", error="invalid_token"`)
			return apiErr(401, "unauthorized", "that API key is not valid (revoked or mistyped)")
		}
		if err != nil {
			return err
		}
		okRate, retry, err := s.admin.Limiter.Allow(c.Request().Context(), "key:"+key.ID, s.admin.KeyLimit)
		if err != nil {
			return err
		}
		if !okRate {
			ae := apiErr(429, "rate_limited", "this API key is over %d requests a minute; retry after %ds", s.admin.KeyLimit, int(retry.Seconds()+0.999))
			ae.retry = retry
			return ae
		}
		c.Set("apikey", key)
		return next(c)
	}
}

// limitAddr applies the per-client-address rate limit to every API request.
func (s *Server) limitAddr(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ok, retry, err := s.admin.Limiter.Allow(c.Request().Context(), "addr:"+c.RealIP(), s.admin.AddrLimit)
		if err != nil {
			return err
		}
		if !ok {
			ae := apiErr(429, "rate_limited", "too many requests from %s: over %d a minute; retry after %ds", c.RealIP(), s.admin.AddrLimit, int(retry.Seconds()+0.999))
			ae.retry = retry
			return ae
		}
		return next(c)
	}
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

// decodeJSON reads a request body strictly: known fields only, one value.
func decodeJSON(c echo.Context, v any) error {
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// A body with a Content-Length over the limit never gets here; a
		// chunked one fails while read, with echo's 413 from BodyLimit's reader.
		var mbe *http.MaxBytesError
		var he *echo.HTTPError
		if errors.As(err, &mbe) {
			return apiErr(413, "too_large", "the request body is over %d bytes", mbe.Limit)
		}
		if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
			return tooLarge()
		}
		return apiErr(400, "bad_json", "the body is not valid JSON for this request: %v", err)
	}
	if dec.More() {
		return apiErr(400, "bad_json", "the body holds more than one JSON value")
	}
	if ck, ok := v.(checker); ok {
		return ck.check()
	}
	return nil
}

// checker is a request body with a rule its JSON shape cannot state and the
// domain cannot see any more once decoded; decodeJSON applies it.
type checker interface{ check() error }

// check refuses "periods": [], which board.Normalize would quietly turn into
// all time only, as the admin form refuses an empty choice. Leaving periods
// out (nil) keeps the default of a new board.
func (j *boardJSON) check() error {
	if j.Periods != nil && len(j.Periods) == 0 {
		const msg = "enable at least one period"
		ae := apiErr(422, "invalid", "periods: %s (day, week, month, year, all)", msg)
		ae.Field, ae.Fields = "periods", []fieldIssue{{Field: "periods", Message: msg}}
		return ae
	}
	return nil
}

// apiBodyLimit is the largest request body the API reads (1M: 1,000,000 bytes).
const apiBodyLimit = "1M"

func tooLarge() *apiError {
	return apiErr(413, "too_large", "the request body is over the API's limit of %sB", apiBodyLimit)
}

// apiRoutes mounts /api/v1.
func (s *Server) apiRoutes() {
	g := s.echo.Group("/api/v1", middleware.BodyLimit(apiBodyLimit), s.limitAddr)
	g.GET("/openapi.json", s.openAPI)
	g.GET("/boards", s.apiBoards)
	g.GET("/boards/:board", s.apiBoard)
	g.GET("/boards/:board/entries", s.apiEntries)
	g.GET("/boards/:board/members/:member", s.apiMember)
	g.GET("/boards/:board/members/:member/around", s.apiAround)
	g.POST("/boards/:board/scores", s.apiSubmit, s.requireKey)
	g.DELETE("/boards/:board/members/:member", s.apiRemoveMember, s.requireKey)
	g.POST("/boards", s.apiCreateBoard, s.requireKey)
	g.PUT("/boards/:board", s.apiUpdateBoard, s.requireKey)
	g.DELETE("/boards/:board", s.apiDeleteBoard, s.requireKey)
	g.Any("/*", func(c echo.Context) error {
		return apiErr(404, "not_found", "no API route %s %s", c.Request().Method, c.Request().URL.Path)
	})
}
