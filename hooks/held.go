package hooks

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"podium/board"
	"podium/redisstore"
)

var (
	//go:embed lua/held.lua
	heldLua    string
	heldScript = redisstore.Script(fanoutLua + "\n" + heldLua)
)

// heldPerTick bounds the held scores one tick announces; the next goes on.
const heldPerTick = 100

// Held is a score.held payload's score: a write that broke one of the
// board's fair-play rules and waits in its review queue (board/held.go).
type Held struct {
	ID     int64       `json:"id"`
	Member string      `json:"member"`
	Name   string      `json:"name,omitempty"` // the display name it would set
	Op     string      `json:"op"`
	Value  json.Number `json:"value"` // exact, in the board's unit, as the API sends scores
	Rule   string      `json:"rule"`
	Sent   time.Time   `json:"sent"`
	By     string      `json:"by"` // the actor that sent it (an API key, FCALL, a console user)
}

// heldData is a queued score.held event's data: the held write as the
// store keeps it.
type heldData struct {
	ID   int64 `json:"held_id"`
	Held struct {
		Member string `json:"m"`
		Op     string `json:"op"`
		Value  string `json:"v"`
		Name   string `json:"name"`
		At     string `json:"at"` // µs
		Rule   string `json:"rule"`
		By     string `json:"by"`
	} `json:"held"`
}

// heldOf reads a queued score.held event's data into its payload part.
func heldOf(b *board.Board, data string) (*Held, error) {
	var d heldData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return nil, err
	}
	v, _ := strconv.ParseFloat(d.Held.Value, 64)
	us, _ := strconv.ParseInt(d.Held.At, 10, 64)
	return &Held{ID: d.ID, Member: d.Held.Member, Name: d.Held.Name, Op: d.Held.Op, Value: json.Number(b.Format.Number(v)),
		Rule: d.Held.Rule, Sent: time.UnixMicro(us).UTC(), By: d.Held.By}, nil
}

// heldScores announces the scores held since the last tick to the hooks
// that want them.
func (r *Runner) heldScores(ctx context.Context, b *board.Board, hs []Hook, now time.Time) error {
	if !slices.ContainsFunc(hs, func(h Hook) bool { return h.Enabled && h.Wants(ScoreHeld) }) {
		return nil
	}
	keys, args := fanoutArgs(b, now)
	queue, seq := redisstore.HeldKeys(b.ID)
	keys = append(keys, queue, seq)
	args = append(args, heldPerTick)
	if err := heldScript.Run(ctx, r.rdb, keys, args...).Err(); err != nil {
		return fmt.Errorf("hooks: announce the held scores of %q: %w", b.ID, err)
	}
	return nil
}
