package hooks

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

var (
	//go:embed lua/fanout.lua
	fanoutLua string
	//go:embed lua/detect.lua
	detectLua string
	//go:embed lua/closed.lua
	closedLua string

	detectScript = redisstore.Script(fanoutLua + "\n" + detectLua)
	closedScript = redisstore.Script(fanoutLua + "\n" + closedLua)
)

// periodJSON is a period as payloads show it, fixed when the event is
// queued: a later change of the board's time zone does not change it.
type periodJSON struct {
	Kind  board.Kind `json:"kind"`
	Key   string     `json:"key,omitempty"`
	Title string     `json:"title"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

func periodOf(p board.Period) string {
	j := periodJSON{Kind: p.Kind, Key: p.Key, Title: p.Title()}
	if p.Kind.Calendar() {
		s, e := p.Start.UTC(), p.End.UTC()
		j.Start, j.End = &s, &e
	}
	out, _ := json.Marshal(j)
	return string(out)
}

// fanoutArgs are the keys and first arguments every fan-out script takes.
func fanoutArgs(b *board.Board, now time.Time) ([]string, []any) {
	_, _, names := redisstore.ScriptKeys(b, board.Period{Kind: board.AllTime})
	keys := []string{hooksKey(b.ID), stateKey(b.ID), queueKey(b.ID), seqKey(b.ID), names}
	args := append(redisstore.ScriptArgs(b), b.ID, strconv.FormatInt(now.UnixMilli(), 10), queueKeep)
	return keys, args
}

// detect compares the current period of each kind the board keeps with
// what was last seen, and queues the events, in one script call.
func detect(ctx context.Context, rdb redis.UniversalClient, b *board.Board, now time.Time) (int, error) {
	keys, args := fanoutArgs(b, now)
	args = append(args, len(b.Periods))
	for _, k := range b.Periods {
		p := b.Current(k, now)
		z, d, _ := redisstore.ScriptKeys(b, p)
		keys = append(keys, z, d)
		args = append(args, string(k), p.String(), periodOf(p))
	}
	n, err := detectScript.Run(ctx, rdb, keys, args...).Int()
	if err != nil {
		return 0, fmt.Errorf("hooks: detect on %q: %w", b.ID, err)
	}
	return n, nil
}

// row is an entry of a payload as the scripts keep it: the score as Redis
// wrote it, in the board's units.
type row struct {
	Member string `json:"m"`
	Name   string `json:"n"`
	Score  string `json:"s"`
	Rank   int    `json:"r"`
}

// announceClosed queues period.closed for p with its final top rows; the
// script makes sure it happens once, whoever calls it.
func announceClosed(ctx context.Context, rdb redis.UniversalClient, b *board.Board, p board.Period, top []board.Entry, now time.Time) (int, error) {
	rs := make([]row, len(top))
	for i, e := range top {
		rs[i] = row{Member: e.Member, Name: e.Name, Score: strconv.FormatFloat(e.Score, 'g', -1, 64), Rank: e.Rank}
	}
	final, err := json.Marshal(rs)
	if err != nil {
		return 0, err
	}
	keys, args := fanoutArgs(b, now)
	args = append(args, string(p.Kind), periodOf(p), p.End.UnixMilli(), string(final))
	n, err := closedScript.Run(ctx, rdb, keys, args...).Int()
	if err != nil {
		return 0, fmt.Errorf("hooks: announce %s of %q: %w", p, b.ID, err)
	}
	return max(n, 0), nil
}

// closedDue is, per kind the board keeps (all time and the rolling windows
// never close), the periods that closed and were not announced yet (marks:
// the "closed:<kind>" fields of the state), oldest first, whose grace has
// passed and that some enabled hook registered before their end wants. A
// kind announced before catches up on every period since its mark (after
// a freeze or an outage), at most maxCatchUp of them; a kind never
// announced starts with the last period only.
func closedDue(b *board.Board, hs []Hook, marks map[board.Kind]int64, now time.Time, grace time.Duration) []board.Period {
	var out []board.Period
	for _, k := range b.Periods {
		if !k.Calendar() {
			continue
		}
		var due []board.Period
		for p := b.Current(k, now.Add(-grace)).Prev(); p.End.UnixMilli() > marks[k] && len(due) < maxCatchUp; p = p.Prev() {
			if slices.ContainsFunc(hs, func(h Hook) bool {
				return h.Enabled && h.Wants(PeriodClosed) && h.Follows(k) && h.Created < p.End.UnixMilli()
			}) {
				due = append(due, p)
			}
			if marks[k] == 0 || !p.InRange() {
				break
			}
		}
		slices.Reverse(due)
		out = append(out, due...)
	}
	return out
}

// maxCatchUp bounds the closed periods of a kind announced at once.
const maxCatchUp = 31

// closedMarks reads the end of the last closed period announced per kind.
func closedMarks(ctx context.Context, rdb redis.UniversalClient, b *board.Board) (map[board.Kind]int64, error) {
	fields := make([]string, len(b.Periods))
	for i, k := range b.Periods {
		fields[i] = closedField(k)
	}
	vs, err := rdb.HMGet(ctx, stateKey(b.ID), fields...).Result()
	if err != nil {
		return nil, fmt.Errorf("hooks: state of %q: %w", b.ID, err)
	}
	out := map[board.Kind]int64{}
	for i, v := range vs {
		if s, ok := v.(string); ok {
			out[b.Periods[i]], _ = strconv.ParseInt(s, 10, 64)
		}
	}
	return out, nil
}
