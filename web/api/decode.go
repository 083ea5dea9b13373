package api

import (
	"bytes"
	"encoding/json"

	"github.com/labstack/echo/v4"
)

// decodeJSON reads a request body strictly: valid UTF-8 (the decoder would
// store U+FFFD in its place), known fields only, one value.
func decodeJSON(c echo.Context, v any) error {
	raw, err := readBody(c.Request().Body)
	if err != nil {
		return err
	}
	return decodeRaw(raw, v)
}

// decodeOptionalJSON is decodeJSON for a body that may be left out: an
// empty one (whether sent with a length of 0 or chunked) leaves v as it is.
func decodeOptionalJSON(c echo.Context, v any) error {
	raw, err := readBody(c.Request().Body)
	if err != nil || len(raw) == 0 {
		return err
	}
	return decodeRaw(raw, v)
}

func decodeRaw(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
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
