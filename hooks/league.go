package hooks

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

var (
	//go:embed lua/league.lua
	leagueLua    string
	leagueScript = redisstore.Script(fanoutLua + "\n" + leagueLua)
)

// LeagueStore is what the runner reads of a board's league closes (the
// archiver applies them: redisstore/league_close.go).
type LeagueStore interface {
	LeagueCloses(ctx context.Context, b *board.Board) ([]redisstore.LeagueClose, error)
	LeagueResults(ctx context.Context, b *board.Board, p board.Period) ([]board.LeagueResult, bool, error)
}

// MaxLeagueMoves caps the promotions, and apart the relegations, a
// league.closed payload lists; its counts are of every move.
const MaxLeagueMoves = 1000

// League is a league.closed payload's account of the close: the tiers,
// lowest first, every promotion and relegation (by tier, cohort and rank,
// at most MaxLeagueMoves each; Truncated says some were left out) and how
// many members went up, down or stayed, idle members included.
type League struct {
	Tiers     []string     `json:"tiers"`
	Promoted  []LeagueMove `json:"promoted"`
	Relegated []LeagueMove `json:"relegated"`
	Moves     MoveCounts   `json:"moves"`
	Truncated bool         `json:"truncated"`
}

// LeagueMove is a member promoted or relegated: from the tier it played
// the period in to the one it holds now, with its cohort and rank there.
type LeagueMove struct {
	Member string `json:"member"`
	Name   string `json:"name"`
	From   string `json:"from"`
	To     string `json:"to"`
	Cohort int    `json:"cohort"`
	Rank   int    `json:"rank"`
}

// UnmarshalJSON reads a queued league.closed event's League, which an
// erasure may have rewritten in Lua (redisstore's erase_moves): Lua's JSON
// writes an empty list as {}.
func (l *League) UnmarshalJSON(b []byte) error {
	type plain League
	var raw struct {
		plain
		Promoted  json.RawMessage `json:"promoted"`
		Relegated json.RawMessage `json:"relegated"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*l = League(raw.plain)
	for _, m := range []struct {
		raw  json.RawMessage
		into *[]LeagueMove
	}{{raw.Promoted, &l.Promoted}, {raw.Relegated, &l.Relegated}} {
		*m.into = []LeagueMove{}
		if s := strings.TrimSpace(string(m.raw)); s == "" || s == "{}" || s == "null" {
			continue
		}
		if err := json.Unmarshal(m.raw, m.into); err != nil {
			return err
		}
	}
	return nil
}

// MoveCounts counts a close's moves.
type MoveCounts struct {
	Up   int `json:"up"`
	Down int `json:"down"`
	Stay int `json:"stay"`
}

// leagueOf sums up the results rs of a close of league l (names are filled in later).
func leagueOf(l *board.League, rs []board.LeagueResult) League {
	out := League{Tiers: slices.Clone(l.Tiers), Promoted: []LeagueMove{}, Relegated: []LeagueMove{}}
	tier := func(t int) string {
		if t >= 0 && t < len(l.Tiers) {
			return l.Tiers[t]
		}
		return strconv.Itoa(t) // tiers taken off the league since
	}
	for _, r := range rs {
		var to *[]LeagueMove
		switch r.Move {
		case board.Up:
			out.Moves.Up++
			to = &out.Promoted
		case board.Down:
			out.Moves.Down++
			to = &out.Relegated
		default:
			out.Moves.Stay++
			continue
		}
		if len(*to) == MaxLeagueMoves {
			out.Truncated = true
			continue
		}
		*to = append(*to, LeagueMove{Member: r.Member, From: tier(r.Tier), To: tier(r.Next), Cohort: r.Cohort, Rank: r.Rank})
	}
	return out
}

// leagueDue is the closes of the league's kind that were applied and not
// announced yet (mark: the "league:<kind>" field of the state, the end of
// the last period announced), oldest first, that some enabled hook
// registered before the close wants. A kind announced before catches up on
// every close since its mark, at most maxCatchUp of them; a kind never
// announced starts with its last close only. Closes of a kind the league
// ran on before are not news.
func leagueDue(b *board.Board, hs []Hook, mark int64, closes []redisstore.LeagueClose) []redisstore.LeagueClose {
	if b.League == nil {
		return nil // taken off: what closed before is not news
	}
	k := b.League.Kind
	var due []redisstore.LeagueClose
	for i := len(closes) - 1; i >= 0 && len(due) < maxCatchUp; i-- { // newest first
		c := closes[i]
		if c.Period.Kind != k {
			continue
		}
		if c.End.UnixMilli() <= mark {
			break
		}
		if slices.ContainsFunc(hs, func(h Hook) bool {
			return h.Enabled && h.Wants(LeagueClosed) && h.Follows(k) && h.Created < c.At.UnixMilli()
		}) {
			due = append(due, c)
		}
		if mark == 0 {
			break
		}
	}
	slices.Reverse(due)
	return due
}

// leagueMark reads the end of the last league period of kind k announced.
func leagueMark(ctx context.Context, rdb redis.UniversalClient, b *board.Board, k board.Kind) (int64, error) {
	v, err := rdb.HGet(ctx, stateKey(b.ID), leagueField(k)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("hooks: state of %q: %w", b.ID, err)
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n, nil
}

// leagueClosed announces the league closes not announced yet.
func (r *Runner) leagueClosed(ctx context.Context, b *board.Board, hs []Hook, now time.Time) error {
	if b.League == nil || !slices.ContainsFunc(hs, func(h Hook) bool { return h.Enabled && h.Wants(LeagueClosed) }) {
		return nil
	}
	closes, err := r.store.LeagueCloses(ctx, b)
	if err != nil {
		return err
	}
	mark, err := leagueMark(ctx, r.rdb, b, b.League.Kind)
	if err != nil {
		return err
	}
	for _, c := range leagueDue(b, hs, mark, closes) {
		rs, ok, err := r.store.LeagueResults(ctx, b, c.Period)
		if err != nil {
			return err
		}
		var sum *League
		if ok {
			l := leagueOf(b.League, rs)
			if err := r.names(ctx, b, l.Promoted, l.Relegated); err != nil {
				return err
			}
			sum = &l
		} else {
			r.log.Warn("webhooks: a league close's results expired before it was announced", slog.String("board", b.ID), slog.String("period", c.Period.String()))
		}
		if _, err := announceLeague(ctx, r.rdb, b, c, sum, now); err != nil {
			return err
		}
	}
	return nil
}

// names fills in the display names of the members moved.
func (r *Runner) names(ctx context.Context, b *board.Board, lists ...[]LeagueMove) error {
	var ms []string
	for _, l := range lists {
		for _, m := range l {
			ms = append(ms, m.Member)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	_, _, key := redisstore.ScriptKeys(b, board.Period{Kind: board.AllTime})
	vs, err := r.rdb.HMGet(ctx, key, ms...).Result()
	if err != nil {
		return fmt.Errorf("hooks: names on %q: %w", b.ID, err)
	}
	i := 0
	for _, l := range lists {
		for j := range l {
			l[j].Name, _ = vs[i].(string)
			if l[j].Name == "" {
				l[j].Name = l[j].Member
			}
			i++
		}
	}
	return nil
}

// announceLeague queues league.closed for close c; the script makes sure
// it happens once, whoever calls it. Without sum (its results expired) it
// only marks the close announced.
func announceLeague(ctx context.Context, rdb redis.UniversalClient, b *board.Board, c redisstore.LeagueClose, sum *League, now time.Time) (int, error) {
	var data []byte
	if sum != nil {
		var err error
		if data, err = json.Marshal(eventData{League: sum}); err != nil {
			return 0, err
		}
	}
	keys, args := fanoutArgs(b, now)
	args = append(args, string(c.Period.Kind), periodOf(c.Period), c.End.UnixMilli(), c.At.UnixMilli(), string(data))
	n, err := leagueScript.Run(ctx, rdb, keys, args...).Int()
	if err != nil {
		return 0, fmt.Errorf("hooks: announce the league close of %s of %q: %w", c.Period, b.ID, err)
	}
	return max(n, 0), nil
}
