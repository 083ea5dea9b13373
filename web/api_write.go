package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"podium/audit"
	"podium/board"
)

// submissionJSON is one score on the wire.
type submissionJSON struct {
	Member         string   `json:"member"`
	Score          *float64 `json:"score"`
	Op             string   `json:"op,omitempty"`
	Name           string   `json:"name,omitempty"`
	Fields         []int64  `json:"fields,omitempty"`
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
}

// submitBody is one submission, or {"scores": [...]}, never both.
type submitBody struct {
	submissionJSON
	Scores []submissionJSON `json:"scores,omitempty"`
}

// decodeScores reads a submission request: the body and the Idempotency-Key
// header. For one submission the header is its key; for a batch it is the
// batch's. It checks shape only; the board checks values.
func decodeScores(body io.Reader, header string) (subs []board.Submission, batchKey string, batch bool, err error) {
	var req submitBody
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", false, apiErr(413, "too_large", "the request body is over %d bytes", mbe.Limit)
		}
		return nil, "", false, apiErr(400, "bad_json", "the body is not a submission: %v", err)
	}
	if dec.More() {
		return nil, "", false, apiErr(400, "bad_json", "the body holds more than one JSON value")
	}
	single := req.Member != "" || req.Score != nil || req.Op != "" || req.Name != "" || req.Fields != nil || req.IdempotencyKey != ""
	switch {
	case req.Scores != nil && single:
		return nil, "", false, apiErr(400, "bad_json", `send one submission or {"scores": [...]}, not both`)
	case req.Scores != nil:
		if len(req.Scores) == 0 || len(req.Scores) > board.MaxBatch {
			ae := apiErr(422, "invalid", "a batch holds 1 to %d scores", board.MaxBatch)
			ae.Field = "scores"
			return nil, "", false, ae
		}
		subs = make([]board.Submission, len(req.Scores))
		for i, j := range req.Scores {
			if subs[i], err = j.submission(fmt.Sprintf("scores[%d].", i)); err != nil {
				return nil, "", false, err
			}
		}
		return subs, header, true, nil
	}
	sub, err := req.submission("")
	if err != nil {
		return nil, "", false, err
	}
	if header != "" {
		if sub.IdempotencyKey != "" && sub.IdempotencyKey != header {
			return nil, "", false, apiErr(400, "bad_request", "the Idempotency-Key header and idempotency_key differ")
		}
		sub.IdempotencyKey = header
	}
	return []board.Submission{sub}, "", false, nil
}

func (j submissionJSON) submission(field string) (board.Submission, error) {
	if j.Score == nil {
		ae := apiErr(422, "invalid", "%sscore is required", field)
		ae.Field = field + "score"
		return board.Submission{}, ae
	}
	return board.Submission{Member: j.Member, Score: *j.Score, Op: board.Op(j.Op), Name: j.Name, Fields: j.Fields, IdempotencyKey: j.IdempotencyKey}, nil
}

type placeJSON struct {
	Score float64 `json:"score"`
	Rank  int     `json:"rank,omitempty"`
}

type changeJSON struct {
	Period periodJSON `json:"period"`
	Before *placeJSON `json:"before"`
	After  *placeJSON `json:"after"`
}

type resultJSON struct {
	Member   string       `json:"member"`
	Replayed bool         `json:"replayed,omitempty"`
	Periods  []changeJSON `json:"periods"`
}

func placeOf(p board.Place) *placeJSON {
	if !p.Ranked {
		return nil
	}
	return &placeJSON{Score: p.Score, Rank: p.Rank}
}

func toResultJSON(r board.Result) resultJSON {
	out := resultJSON{Member: r.Member, Replayed: r.Replayed}
	for _, c := range r.Changes {
		out.Periods = append(out.Periods, changeJSON{Period: toPeriodJSON(c.Period), Before: placeOf(c.Before), After: placeOf(c.After)})
	}
	return out
}

// apiSubmit takes one score or a batch; a batch is applied all or nothing.
func (s *Server) apiSubmit(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	if err := scoped(c, b.ID); err != nil {
		return err
	}
	subs, batchKey, batch, err := decodeScores(c.Request().Body, c.Request().Header.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	res, err := s.admin.Store.SubmitBatch(c.Request().Context(), b.ID, subs, batchKey)
	if err != nil {
		return err
	}
	actor := actorOfKey(keyOf(c))
	for i, r := range res {
		if !r.Replayed {
			s.record(c, changeEntry(&b, actor, subs[i], r, ""))
		}
	}
	if !batch {
		return c.JSON(http.StatusOK, map[string]any{"result": toResultJSON(res[0])})
	}
	out := make([]resultJSON, len(res))
	for i, r := range res {
		out[i] = toResultJSON(r)
	}
	return c.JSON(http.StatusOK, map[string]any{"results": out})
}

// changeEntry describes a score change for the audit log, measured in the
// board's default period.
func changeEntry(b *board.Board, actor string, sub board.Submission, r board.Result, why string) audit.Entry {
	e := audit.Entry{Actor: actor, Action: "score." + string(sub.Op), Board: b.ID, Member: sub.Member, Reason: why}
	if why == "" {
		e.Reason = fmt.Sprintf("%s %s", sub.Op, b.Format.Display(sub.Score))
	} else {
		e.Reason = fmt.Sprintf("%s %s: %s", sub.Op, b.Format.Display(sub.Score), why)
	}
	if c, ok := pickChange(b, r.Changes); ok {
		e.Period = c.Period.String()
		e.Before, e.After = placeText(b, c.Before), placeText(b, c.After)
	}
	return e
}

func placeText(b *board.Board, p board.Place) string {
	if !p.Ranked {
		return "(none)"
	}
	return b.Format.Display(p.Score) + " (rank " + strconv.Itoa(p.Rank) + ")"
}

// record writes an audit entry; a failure is logged loudly, since the change
// itself has been made.
func (s *Server) record(c echo.Context, e audit.Entry) {
	if err := s.admin.Audit.Record(c.Request().Context(), e); err != nil {
		s.log.Error("AUDIT ENTRY LOST", "action", e.Action, "actor", e.Actor, "board", e.Board, "member", e.Member, "before", e.Before, "after", e.After, "error", err)
	}
}

// apiRemoveMember removes a member from one period (?period=&at=) or all.
func (s *Server) apiRemoveMember(c echo.Context) error {
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	if err := scoped(c, b.ID); err != nil {
		return err
	}
	member := param(c, "member")
	var p *board.Period
	if c.QueryParam("period") != "" {
		per, err := s.apiPeriod(c, &b)
		if err != nil {
			return err
		}
		p = &per
	}
	removed, err := s.admin.Store.RemoveMember(c.Request().Context(), b.ID, member, p)
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return apiErr(404, "member_not_found", "%q has no score to remove on board %q", member, b.ID)
	}
	type removedJSON struct {
		Period periodJSON `json:"period"`
		Score  float64    `json:"score"`
	}
	out := make([]removedJSON, len(removed))
	for i, r := range removed {
		out[i] = removedJSON{Period: toPeriodJSON(r.Period), Score: r.Score}
		s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "member.remove", Board: b.ID, Member: member,
			Period: r.Period.String(), Before: b.Format.Display(r.Score), After: "(removed)"})
	}
	return c.JSON(http.StatusOK, map[string]any{"member": member, "removed": out})
}

func (s *Server) apiCreateBoard(c echo.Context) error {
	if err := allBoards(c); err != nil {
		return err
	}
	var j boardJSON
	if err := decodeJSON(c, &j); err != nil {
		return err
	}
	b, err := s.admin.Store.CreateBoard(c.Request().Context(), j.board())
	if err != nil {
		return err
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.create", Board: b.ID, After: defText(&b)})
	c.Response().Header().Set("Location", "/api/v1/boards/"+url.PathEscape(b.ID))
	return c.JSON(http.StatusCreated, toBoardJSON(&b))
}

func (s *Server) apiUpdateBoard(c echo.Context) error {
	if err := allBoards(c); err != nil {
		return err
	}
	old, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	var j boardJSON
	if err := decodeJSON(c, &j); err != nil {
		return err
	}
	if j.ID != "" && j.ID != old.ID {
		ae := apiErr(422, "invalid", "id %q in the body differs from %q in the path; a board's id cannot change", j.ID, old.ID)
		ae.Field = "id"
		return ae
	}
	j.ID = old.ID
	// Options fixed at creation may be left out; they keep their values.
	if j.Order == "" {
		j.Order = string(old.Order)
	}
	if j.TieBreak == "" {
		j.TieBreak = string(old.TieBreak)
	}
	if j.Fields == nil {
		j.Fields = toBoardJSON(&old).Fields
	}
	b, err := s.admin.Store.UpdateBoard(c.Request().Context(), j.board())
	if err != nil {
		return err
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.update", Board: b.ID, Before: defText(&old), After: defText(&b)})
	return c.JSON(http.StatusOK, toBoardJSON(&b))
}

func (s *Server) apiDeleteBoard(c echo.Context) error {
	if err := allBoards(c); err != nil {
		return err
	}
	b, err := s.apiLoadBoard(c)
	if err != nil {
		return err
	}
	if err := s.admin.Store.DeleteBoard(c.Request().Context(), b.ID); err != nil {
		return err
	}
	s.record(c, audit.Entry{Actor: actorOfKey(keyOf(c)), Action: "board.delete", Board: b.ID, Before: defText(&b), After: "(deleted)"})
	return c.NoContent(http.StatusNoContent)
}

// defText is a definition as compact JSON, for the audit log.
func defText(b *board.Board) string {
	j := toBoardJSON(b)
	j.Created, j.Updated = nil, nil
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(j)
	return string(bytes.TrimSpace(buf.Bytes()))
}
