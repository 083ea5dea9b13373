package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
	"podium/web/request"
)

// submissionJSON is one score on the wire. The score is kept as the text of
// the JSON value and read exactly in the board's units (never through a
// float64 first, which would round 2^53+1 to 2^53 before any check). It is a
// json.RawMessage rather than a json.Number because the decoder also puts a
// string holding a number ("12") into a json.Number; scores are numbers.
// Team is a pointer so that "team": "" can be told from no team.
type submissionJSON struct {
	Member         string          `json:"member"`
	Score          json.RawMessage `json:"score"`
	Op             string          `json:"op,omitempty"`
	Name           string          `json:"name,omitempty"`
	Fields         []int64         `json:"fields,omitempty"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
	Team           *string         `json:"team,omitempty"`
	// Segments gives the member values of the board's attributes
	// ({"country": "NO"}; "" takes it out of one) before the score counts.
	Segments map[string]string `json:"segments,omitempty"`
	// Session is the run's token on a board with sessions (board/session.go).
	Session string `json:"session,omitempty"`
}

// submitBody is one submission, or {"scores": [...]}, never both.
type submitBody struct {
	submissionJSON
	Scores []submissionJSON `json:"scores,omitempty"`
	// Ranks false skips a batch's before and after ranks: bulk ingestion.
	Ranks *bool `json:"ranks,omitempty"`
}

// scoresRequest is a decoded submission request.
type scoresRequest struct {
	subs  []board.Submission
	batch bool
	opt   board.BatchOptions // a batch's key and ranks setting
}

// decodeScores reads a submission request: the body and the Idempotency-Key
// header. For one submission the header is its key; for a batch it is the
// batch's. Scores are read exactly in fm's units; the board checks the rest.
func decodeScores(body io.Reader, header string, fm board.Format) (scoresRequest, error) {
	raw, err := readBody(body)
	if err != nil {
		return scoresRequest{}, err
	}
	var req submitBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return scoresRequest{}, apiErr(400, "bad_json", "the body is not a submission: %v", err)
	}
	if dec.More() {
		return scoresRequest{}, apiErr(400, "bad_json", "the body holds more than one JSON value")
	}
	single := req.Member != "" || req.Score != nil || req.Op != "" || req.Name != "" || req.Fields != nil || req.IdempotencyKey != "" || req.Team != nil || req.Segments != nil
	switch {
	case req.Scores != nil && single:
		return scoresRequest{}, apiErr(400, "bad_json", `send one submission or {"scores": [...]}, not both`)
	case req.Scores != nil:
		if len(req.Scores) == 0 || len(req.Scores) > board.MaxBatch {
			ae := apiErr(422, "invalid", "a batch holds 1 to %d scores", board.MaxBatch)
			ae.Field = "scores"
			return scoresRequest{}, ae
		}
		out := scoresRequest{subs: make([]board.Submission, len(req.Scores)), batch: true}
		for i, j := range req.Scores {
			if out.subs[i], err = j.submission(fmt.Sprintf("scores[%d].", i), fm); err != nil {
				return scoresRequest{}, err
			}
		}
		out.opt = board.BatchOptions{Key: header, NoRanks: req.Ranks != nil && !*req.Ranks}
		return out, nil
	case req.Ranks != nil:
		ae := apiErr(422, "invalid", `ranks applies to batches ({"scores": [...], "ranks": false}); a single score always has its ranks`)
		ae.Field = "ranks"
		return scoresRequest{}, ae
	}
	sub, err := req.submission("", fm)
	if err != nil {
		return scoresRequest{}, err
	}
	if header != "" {
		if sub.IdempotencyKey != "" && sub.IdempotencyKey != header {
			return scoresRequest{}, apiErr(400, "bad_request", "the Idempotency-Key header and idempotency_key differ")
		}
		sub.IdempotencyKey = header
	}
	return scoresRequest{subs: []board.Submission{sub}}, nil
}

// readBody reads a whole request body, which the API's body limit bounds.
// Over the limit is 413 whether the body came with a length or chunked (the
// limit then shows up as an *echo.HTTPError from Read). Invalid UTF-8 is
// refused: the JSON decoder would turn it into U+FFFD, so two different ids
// would become one member.
func readBody(body io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		var he *echo.HTTPError
		if errors.As(err, &mbe) || (errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge) {
			return nil, tooLarge()
		}
		if errors.Is(err, os.ErrDeadlineExceeded) { // the server's bound on bodies (web.bodyDeadline)
			return nil, apiErr(408, "request_timeout", "the request body did not arrive in time")
		}
		return nil, apiErr(400, "bad_request", "the request body could not be read: %v", err)
	}
	if !utf8.Valid(raw) {
		return nil, apiErr(400, "bad_utf8", "the body is not valid UTF-8")
	}
	return raw, nil
}

func (j submissionJSON) submission(field string, fm board.Format) (board.Submission, error) {
	invalid := func(name, format string, args ...any) error {
		ae := apiErr(422, "invalid", "%s%s "+format, append([]any{field, name}, args...)...)
		ae.Field = field + name
		return ae
	}
	switch {
	case len(j.Score) == 0 || string(j.Score) == "null":
		return board.Submission{}, invalid("score", "is required")
	case j.Score[0] == '"':
		return board.Submission{}, invalid("score", "must be a JSON number, not a string (12, not \"12\")")
	case j.Score[0] != '-' && (j.Score[0] < '0' || j.Score[0] > '9'):
		return board.Submission{}, invalid("score", "must be a JSON number")
	}
	units, err := fm.ParseScore(string(j.Score), false)
	if err != nil {
		ae := apiErr(422, "invalid", "%s%s", field, err)
		ae.Field = field + "score"
		return board.Submission{}, ae
	}
	if j.Session != "" {
		if err := board.CheckSessionToken(j.Session); err != nil {
			return board.Submission{}, invalid("session", "must be the 64-digit token POST .../sessions answered")
		}
	}
	var team string
	if j.Team != nil {
		if *j.Team == "" {
			return board.Submission{}, invalid("team", "is empty: leave it out to keep the member's team (PUT .../members/{member}/team with \"\" leaves a team)")
		}
		team = *j.Team
	}
	return board.Submission{Member: j.Member, Score: units, Unit: fm.Unit(), Op: board.Op(j.Op), Name: j.Name, Fields: j.Fields, IdempotencyKey: j.IdempotencyKey, Team: team, Segments: j.Segments, Session: j.Session}, nil
}

// apiSubmit takes one score or a batch; a batch is applied all or nothing.
// The write records its own audit entry, in the same step as the change.
// Single scores go through the store's group commit: concurrent ones to a
// board by one key share a script call, each with its own result.
func (s *Handler) apiSubmit(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	req, err := decodeScores(c.Request().Body, c.Request().Header.Get("Idempotency-Key"), b.Format)
	if err != nil {
		return err
	}
	by := board.Author{Actor: actorOfKey(keyOf(c))}
	ctx := c.Request().Context()
	if !req.batch {
		res, err := s.opts.Store.Submit(ctx, b.ID, req.subs[0], by)
		if errors.Is(err, board.ErrIdempotencyReused) || errors.Is(err, board.ErrSessionInvalid) {
			ae := apiErrorFor(err, "%s", request.Reason(err))
			ae.Field = fieldOf(err)
			return ae
		}
		if err != nil {
			return err
		}
		status := http.StatusOK
		if res.Held {
			status = http.StatusAccepted // held for review (board/rules.go): taken, not applied
		}
		return c.JSON(status, submitResultJSON{Result: toResultJSON(&b, res)})
	}
	req.opt.By = by
	res, err := s.opts.Store.SubmitBatch(ctx, b.ID, req.subs, req.opt)
	if errors.Is(err, board.ErrIdempotencyReused) || errors.Is(err, board.ErrSessionInvalid) {
		ae := apiErrorFor(err, "%s", request.Reason(err))
		ae.Field = fieldOf(err)
		if be := (*board.BatchError)(nil); errors.As(err, &be) {
			ae.Field = fmt.Sprintf("scores[%d].%s", be.Index, fieldOf(err))
		}
		return ae
	}
	if err != nil {
		return err
	}
	out := make([]resultJSON, len(res))
	for i, r := range res {
		out[i] = toResultJSON(&b, r)
	}
	return c.JSON(http.StatusOK, batchResultJSON{Results: out})
}

// record writes the audit entry of a change this request made.
func (s *Handler) record(c echo.Context, e audit.Entry) {
	s.opts.Audit.RecordDone(c.Request().Context(), e, s.log)
}

// apiRemoveMember removes a member from one period (?period=&at=) or all.
func (s *Handler) apiRemoveMember(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	member := request.Param(c, "member")
	var p *board.Period
	if c.QueryParam("period") == "" && c.QueryParam("at") != "" {
		// Read as "every period", a typo would remove far more than asked.
		ae := apiErr(422, "invalid", "at=%q needs period= (day, week, month, year or custom) to say which period it is in; without both the member leaves every period", c.QueryParam("at"))
		ae.Field = "period"
		return ae
	}
	if c.QueryParam("period") != "" {
		per, err := s.apiPeriod(c, &b)
		if err != nil {
			return err
		}
		p = &per
	}
	removed, err := s.opts.Store.RemoveMember(c.Request().Context(), b.ID, member, p, board.Author{Actor: actorOfKey(keyOf(c))})
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return apiErr(404, "member_not_found", "%q has no score to remove on board %q", member, b.ID)
	}
	out := make([]removedPeriodJSON, len(removed))
	for i, r := range removed {
		out[i] = removedPeriodJSON{Period: toPeriodJSON(r.Period), Score: json.Number(b.Format.Number(r.Score))}
	}
	return c.JSON(http.StatusOK, removedJSON{Member: member, Removed: out})
}

// fieldOf is the submission's field a refused idempotency key or run token
// names.
func fieldOf(err error) string {
	if errors.Is(err, board.ErrSessionInvalid) {
		return "session"
	}
	return "idempotency_key"
}
