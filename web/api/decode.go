package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
)

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

// decodeJSONText is decodeJSON for a body whose text is kept and shown (a
// webhook's URL): invalid UTF-8 is refused (400 bad_utf8), not turned into
// U+FFFD by the decoder.
func decodeJSONText(c echo.Context, v any) error {
	raw, err := readBody(c.Request().Body)
	if err != nil {
		return err
	}
	c.Request().Body = io.NopCloser(bytes.NewReader(raw))
	return decodeJSON(c, v)
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
