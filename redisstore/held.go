package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// The review queue of writes held for breaking a board's fair-play rules
// (board/held.go): a hash in the board's slot, heldKey, of id -> the
// write's JSON as lua/lib/rules.lua wrote it, at most board.MaxHeld.

// heldJSON is a held write as lua/lib/rules.lua keeps it.
type heldJSON struct {
	Member string `json:"m"`
	Op     string `json:"op"`
	Value  string `json:"v"`
	Name   string `json:"name"`
	Team   string `json:"team"`
	At     string `json:"at"` // µs, as text (cjson writes numbers with 14 digits)
	Rule   string `json:"rule"`
	By     string `json:"by"`
}

func (h heldJSON) write(id int64) board.HeldWrite {
	v, _ := strconv.ParseFloat(h.Value, 64)
	at, _ := strconv.ParseInt(h.At, 10, 64)
	return board.HeldWrite{ID: id, Member: h.Member, Name: h.Name, Op: board.Op(h.Op), Value: v, Team: h.Team, Rule: h.Rule,
		At: time.UnixMicro(at).UTC(), By: h.By}
}

// Held lists a board's held writes, oldest first.
func (s writer) Held(ctx context.Context, boardID string) ([]board.HeldWrite, error) {
	m, err := s.rdb.HGetAll(ctx, heldKey(boardID)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: held writes of %q: %w", boardID, err)
	}
	out := make([]board.HeldWrite, 0, len(m))
	for k, raw := range m {
		id, err := strconv.ParseInt(k, 10, 64)
		var h heldJSON
		if err != nil || json.Unmarshal([]byte(raw), &h) != nil {
			continue // not one of ours
		}
		out = append(out, h.write(id))
	}
	slices.SortFunc(out, func(a, b board.HeldWrite) int { return int(a.ID - b.ID) })
	return out, nil
}

// heldOne reads one held write, or board.ErrHeldGone.
func (s writer) heldOne(ctx context.Context, boardID string, id int64) (board.HeldWrite, error) {
	raw, err := s.rdb.HGet(ctx, heldKey(boardID), strconv.FormatInt(id, 10)).Result()
	var h heldJSON
	switch {
	case err == nil && json.Unmarshal([]byte(raw), &h) == nil:
		return h.write(id), nil
	case err == nil || errors.Is(err, redis.Nil):
		return board.HeldWrite{}, fmt.Errorf("board %q: held write %d: %w", boardID, id, board.ErrHeldGone)
	}
	return board.HeldWrite{}, fmt.Errorf("board: held write %d of %q: %w", id, boardID, err)
}

// ApproveHeld applies held write id as it was sent, with its own time for
// the time tie-break, past the rules it broke and the contest's close, and
// drops it from the queue, in the submit script's one step; the audit
// entry (by, whose reason names the held write) is written there too.
func (s writer) ApproveHeld(ctx context.Context, boardID string, id int64, by board.Author) (board.Result, error) {
	h, err := s.heldOne(ctx, boardID, id)
	if err != nil {
		return board.Result{}, err
	}
	by.Reason = approvalReason(h, by.Reason)
	// The script replaces this item with the write it holds; it is
	// here for the checks and the answer's member.
	sub := board.Submission{Member: h.Member, Op: h.Op, Score: h.Value, Name: h.Name}
	res, err := s.SubmitBatch(ctx, boardID, []board.Submission{sub}, board.BatchOptions{By: by, Approve: id})
	if err != nil {
		var be *board.BatchError
		if errors.As(err, &be) {
			err = be.Err
		}
		return board.Result{}, err
	}
	return res[0], nil
}

// approvalReason is the audit reason of an approval: which held write, the
// rule it broke, and the moderator's reason.
func approvalReason(h board.HeldWrite, reason string) string {
	r := fmt.Sprintf("approved held write #%d (rule %s, sent %s by %s)", h.ID, h.Rule, h.At.Format(time.RFC3339), h.By)
	if reason != "" {
		r += ": " + reason
	}
	return r
}

// RejectHeld drops held write id and records it in the board's audit log,
// in one script; it answers the write rejected.
func (s writer) RejectHeld(ctx context.Context, b *board.Board, id int64, by board.Author) (board.HeldWrite, error) {
	if err := by.Check(); err != nil {
		return board.HeldWrite{}, err
	}
	h, err := s.heldOne(ctx, b.ID, id)
	if err != nil {
		return board.HeldWrite{}, err
	}
	reason := fmt.Sprintf("rejected held write #%d: %s %s (rule %s, sent %s by %s)", id, h.Op, b.Format.Display(h.Value), h.Rule, h.At.Format(time.RFC3339), h.By)
	if by.Reason != "" {
		reason += ": " + by.Reason
	}
	c := scripts.reject.call(5, 4).key("def", defKey(b.ID)).key("held", heldKey(b.ID))
	auditKeys(c, b.ID, by).arg("id", strconv.FormatInt(id, 10)).arg("actor", by.Actor).arg("reason", reason).arg("audit_keep", s.auditKeep)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return board.HeldWrite{}, fmt.Errorf("board: reject held write %d of %q: %w", id, b.ID, err)
	}
	st, _, err := status(reply)
	switch {
	case err != nil:
		return board.HeldWrite{}, fmt.Errorf("board: reject held write %d of %q: %w", id, b.ID, err)
	case st == "nf":
		return board.HeldWrite{}, fmt.Errorf("board %q: %w", b.ID, board.ErrNotFound)
	case st == "gone":
		return board.HeldWrite{}, fmt.Errorf("board %q: held write %d: %w", b.ID, id, board.ErrHeldGone)
	}
	return h, nil
}
