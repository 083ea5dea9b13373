package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"

	"podium/board"
)

// ScoreChange describes a score change for the log, measured in the board's
// default period: the console and the API record the same words.
func ScoreChange(b *board.Board, actor string, sub board.Submission, r board.Result, why string) Entry {
	e := Entry{Actor: actor, Action: "score." + string(sub.Op), Board: b.ID, Member: sub.Member}
	e.Reason = fmt.Sprintf("%s %s", sub.Op, b.Format.Display(sub.Score))
	if why != "" {
		e.Reason += ": " + why
	}
	if c, ok := board.PrimaryChange(b, r.Changes); ok {
		e.Period = c.Period.String()
		e.Before, e.After = Place(b, c.Before), Place(b, c.After)
	}
	return e
}

// Place is a standing as the log shows it: "1,250 (rank 3)" or "(none)".
func Place(b *board.Board, p board.Place) string {
	if !p.Ranked {
		return "(none)"
	}
	return b.Format.Display(p.Score) + " (rank " + strconv.Itoa(p.Rank) + ")"
}

// Definition is a board definition as compact JSON (the API's form, without
// its timestamps), for the before and after of board changes.
func Definition(b *board.Board) string {
	j := board.SpecOf(b)
	j.Created, j.Updated = nil, nil
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(j)
	return string(bytes.TrimSpace(buf.Bytes()))
}

// RecordDone records the entry of a change that has been made. The change is
// done, so the caller's cancellation (a client hanging up) must not cancel
// its entry; a failure is logged loudly with every detail, for the record.
func (l *Log) RecordDone(ctx context.Context, e Entry, log *slog.Logger) {
	if err := l.Record(context.WithoutCancel(ctx), e); err != nil {
		log.Error("AUDIT ENTRY LOST", "action", e.Action, "actor", e.Actor, "board", e.Board, "member", e.Member,
			"period", e.Period, "before", e.Before, "after", e.After, "reason", e.Reason, "error", err)
	}
}
