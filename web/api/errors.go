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

// apiErrorFor is a domain error's answer: the status, code and retry of the
// one table (request.Classify), in the API's words.
func apiErrorFor(err error, format string, args ...any) *apiError {
	c, _ := request.Classify(err)
	return &apiError{Status: c.Status, Code: c.Code, Message: fmt.Sprintf(format, args...), retry: c.Retry}
}

// apiErrorOf maps any error to the JSON error a client gets; nil for an
// error nobody outside can do anything about (a bug: 500).
func apiErrorOf(err error) *apiError {
	var ae *apiError
	var he *echo.HTTPError
	var pr *request.Problem
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &pr):
		ae := apiErr(pr.Status, pr.Code, "%s", pr.Message)
		ae.Field, ae.retry = pr.Field, pr.Retry
		return ae
	case errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge:
		return tooLarge() // BodyLimit, by Content-Length
	case errors.As(err, &he):
		code := map[int]string{404: "not_found", 405: "method_not_allowed", 429: "rate_limited"}[he.Code]
		if code == "" {
			code = strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_")
		}
		return apiErr(he.Code, code, "%v", he.Message)
	}
	if _, ok := request.Classify(err); !ok {
		return nil
	}
	ae = apiErrorFor(err, "%s", err.Error())
	switch ae.Code {
	case "period_not_found":
		ae.Message = request.Reason(err)
	case "unavailable":
		ae.Message = request.APIStoreDown
	case "invalid", "immutable":
		fieldIssues(ae, err)
	}
	return ae
}

// fieldIssues names the fields a refused definition or submission got
// wrong: the first in field and message, every one in fields. A batch's
// item is named as scores[i].field.
func fieldIssues(ae *apiError, err error) {
	fes := board.FieldErrors(err)
	if len(fes) == 0 {
		return
	}
	ae.Message, ae.Field = fes[0].Error(), fes[0].Field
	if be := (*board.BatchError)(nil); errors.As(err, &be) {
		ae.Field = fmt.Sprintf("scores[%d].%s", be.Index, fes[0].Field)
		ae.Message = fmt.Sprintf("item %d: %s", be.Index, fes[0].Error())
	}
	for _, fe := range fes {
		ae.Fields = append(ae.Fields, fieldIssue{Field: fe.Field, Message: fe.Message})
	}
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
