package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/request"
)

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
	var pr *request.Problem
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &pr):
		ae := apiErr(pr.Status, pr.Code, "%s", pr.Message)
		ae.Field = pr.Field
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
	case errors.Is(err, board.ErrDefinitionChanged):
		return apiErr(409, "definition_changed", "%s", err.Error())
	case errors.Is(err, board.ErrGone):
		return apiErr(410, "period_gone", "%s", err.Error())
	case errors.Is(err, board.ErrTeamsNotArchived):
		return apiErr(410, "teams_not_archived", "%s", err.Error())
	case errors.Is(err, board.ErrArchived):
		return apiErr(409, "archived", "%s", err.Error())
	case errors.Is(err, board.ErrBusy):
		ae := apiErr(503, "busy", "%s", err.Error())
		ae.retry = 2 * time.Second
		return ae
	case errors.Is(err, board.ErrPeriodDisabled), errors.Is(err, board.ErrInvalidPeriod):
		return apiErr(404, "period_not_found", "%s", request.Reason(err))
	case request.StoreUnavailable(err):
		ae := apiErr(503, "unavailable", request.APIStoreDown)
		ae.retry = request.StoreRetry
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

// HandleError answers any error of an API request as JSON: the web server's
// error handler sends every /api/ path here.
func (s *Handler) HandleError(err error, c echo.Context) {
	ae := apiErrorOf(err)
	if ae == nil {
		s.log.Error("api request failed", slog.String("method", c.Request().Method), slog.String("uri", c.Request().RequestURI), slog.Any("error", err))
		ae = apiErr(500, "internal", "the server could not finish this request; it has been logged")
	}
	if ae.retry > 0 {
		c.Response().Header().Set("Retry-After", request.RetryAfter(ae.retry))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	_ = c.JSON(ae.Status, errorJSON{Error: ae})
}

// apiBodyLimit is the largest request body the API reads (1M: 1,000,000 bytes).
const apiBodyLimit = "1M"

func tooLarge() *apiError {
	return apiErr(413, "too_large", "the request body is over the API's limit of %sB", apiBodyLimit)
}
