package redisstore

// A league period's close (board/league.go): when a period of the league's
// kind has ended, the archiver's pass over it (which holds the period's
// lock, so one replica at a time) calls CloseLeague. It works out every
// member's move from the cohorts' standings, League.Next's rules, saves
// the results with the period (z:Lr: member -> "<tier> <cohort> <rank>
// <move> <next>"), gives each member that moves its next tier, and marks
// the close applied, in lb:{b}:league:closed (period -> "c ..." saved, "a
// ..." applied; "last" -> the end of the latest period applied). Each step
// is safe to repeat, so a pass that dies part-way is finished by the next
// one, and once applied a close is never applied again: a member moves
// once per period, whichever replica closes it.
//
// Placing a member in a cohort happens on its first score of a period, so
// a member may play the next period before the close (the archiver runs a
// minute or so after the end): applying its move takes it out of its
// cohort there and places it in one of its new tier, entry and all.
// Periods close in order: closing a period closes the one before it first
// if the league ran then and it has not closed. Writes to a period after its close (late
// writes within the archive's grace) change its standing, not the moves.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"podium/board"
)

// leagueClosedKey holds the close state of each league period of a board.
func leagueClosedKey(id string) string { return tagOf(id) + ":league:closed" }

// resultKey holds the results of period zset z's close.
func resultKey(z string) string { return z + ":Lr" }

// stagingKey lists the keys where passes stage the results of period zset
// z's close before saving them (an erasure renames the member there too).
func stagingKey(z string) string { return z + ":Lr:staging" }

// LeagueClose is a league period whose close was applied: when the period
// ended and when its close was applied.
type LeagueClose struct {
	Period board.Period
	End    time.Time
	At     time.Time
}

// ErrLeagueWaits says a league period cannot close before earlier ones:
// more than maxLeagueCatchUp of them are still open.
var ErrLeagueWaits = errors.New("league: an earlier period has not closed yet")

// closeChunk is how many members one step of a close handles: a million
// members are read and moved a chunk at a time, never in one script call.
var closeChunk = 500 // a variable only so that tests can make it small

// CloseLeague closes league period p of board b (ended, of the league's
// kind): closed is true when this call applied it, false when it had been
// applied before. A period before p that had cohorts and no close is
// closed first, so moves apply in order whatever order passes come in;
// more than maxLeagueCatchUp of them refuse with ErrLeagueWaits.
func (s segmentStore) CloseLeague(ctx context.Context, b *board.Board, p board.Period) (closed bool, err error) {
	l, err := leagueOf(b, p)
	if err != nil {
		return false, err
	}
	if !p.Ended(s.Now()) {
		return false, fmt.Errorf("league: %s of %q has not ended", p, b.ID)
	}
	return s.closeLeague(ctx, b, l, p, 0)
}

// maxLeagueCatchUp bounds how many earlier periods one close catches up.
const maxLeagueCatchUp = 60

func (s segmentStore) closeLeague(ctx context.Context, b *board.Board, l *board.League, p board.Period, depth int) (bool, error) {
	states, err := s.rdb.HGetAll(ctx, leagueClosedKey(b.ID)).Result()
	if err != nil {
		return false, fmt.Errorf("league: closes of %q: %w", b.ID, err)
	}
	label := p.String()
	if strings.HasPrefix(states[label], "a ") {
		return false, nil
	}
	prev := p.Prev()
	if !strings.HasPrefix(states[prev.String()], "a ") && prev.InRange() {
		n, err := s.rdb.Exists(ctx, cohortCountKey(ZSetKey(b.ID, prev))).Result()
		if err != nil {
			return false, fmt.Errorf("league: %s of %q: %w", prev, b.ID, err)
		}
		if n > 0 && depth >= maxLeagueCatchUp {
			return false, fmt.Errorf("%w: %s of %q closes first", ErrLeagueWaits, prev, b.ID)
		}
		if n > 0 {
			if _, err := s.closeLeague(ctx, b, l, prev, depth+1); err != nil {
				return false, err
			}
			return s.closeLeague(ctx, b, l, p, depth) // the states changed
		}
	}
	if !strings.HasPrefix(states[label], "c ") {
		if err := s.saveResults(ctx, b, l, p); err != nil {
			return false, err
		}
	}
	last, _ := strconv.ParseInt(states["last"], 10, 64)
	if last <= p.End.UnixMilli() { // a later period's close, applied first, set the tiers already
		if err := s.applyResults(ctx, b, p); err != nil {
			return false, err
		}
	}
	n, err := s.closeStep(b, p, "done", "").run(ctx, s.rdb).Int()
	if err != nil {
		return false, fmt.Errorf("league: mark %s of %q closed: %w", p, b.ID, err)
	}
	return n == 1, nil
}

// closeStep is a call of leagueclose.lua for period p of board b; staged
// is the key a save renames to the result ("" for the other steps).
func (s segmentStore) closeStep(b *board.Board, p board.Period, mode, staged string) *luaCall {
	z := ZSetKey(b.ID, p)
	if staged == "" {
		staged = resultKey(z)
	}
	return scripts.leagueclose.call(6, 8).key("def", defKey(b.ID)).key("tiers", tierKey(b.ID)).key("closed", leagueClosedKey(b.ID)).
		key("result", resultKey(z)).key("staged", staged).key("next", ZSetKey(b.ID, p.Next())).
		encoding(b).arg("mode", mode).arg("label", p.String()).arg("now_ms", s.Now().UnixMilli()).arg("end_ms", p.End.UnixMilli())
}

// saveResults works out the close of p and saves it as the period's
// result, unless another pass saved one first.
func (s segmentStore) saveResults(ctx context.Context, b *board.Board, l *board.League, p board.Period) error {
	rs, err := s.leagueOutcome(ctx, b, l, p)
	if err != nil {
		return err
	}
	staged, err := s.stageResults(ctx, b, p, rs)
	if err != nil {
		return err
	}
	if err := s.closeStep(b, p, "save", staged).run(ctx, s.rdb).Err(); err != nil {
		return fmt.Errorf("league: save %s of %q: %w", p, b.ID, err)
	}
	return nil
}

// stageResults stages results rs of p's close, a chunk at a time, under a
// key of this call's own (two passes working it out at once, a lock lost,
// never mix their results), listed in the period's staging set so that an
// erasure meanwhile renames the member there too; a member an erasure took
// away since rs were read (in neither the period's places nor the tiers)
// is left out (leaguestage.lua).
func (s segmentStore) stageResults(ctx context.Context, b *board.Board, p board.Period, rs []board.LeagueResult) (string, error) {
	z := ZSetKey(b.ID, p)
	staged := resultKey(z) + ":staged:" + rand.Text()
	for chunk := range slices.Chunk(rs, closeChunk) {
		c := scripts.leaguestage.call(4, 1).key("tiers", tierKey(b.ID)).key("places", placesKey(z)).key("staged", staged).
			key("staging", stagingKey(z)).arg("ttl_ms", time.Hour.Milliseconds()).in("result") // a pass that dies leaves nothing for long
		for _, r := range chunk {
			c.arg("member", r.Member).arg("result", encodeResult(r))
		}
		if err := c.run(ctx, s.rdb).Err(); err != nil {
			return "", fmt.Errorf("league: stage %s of %q: %w", p, b.ID, err)
		}
	}
	return staged, nil
}

// applyResults gives the members who move in p's saved result (whoever
// worked it out) their next tier, a chunk at a time; a member who stays
// holds the tier it played in already.
func (s segmentStore) applyResults(ctx context.Context, b *board.Board, p board.Period) error {
	rs, _, err := s.LeagueResults(ctx, b, p)
	if err != nil {
		return err
	}
	return s.applyMoves(ctx, b, p, rs)
}

// applyMoves applies the moves of results rs of p's close, a chunk at a
// time; a member an erasure took out of the saved results since they were
// read is left alone (leagueclose.lua).
func (s segmentStore) applyMoves(ctx context.Context, b *board.Board, p board.Period, rs []board.LeagueResult) error {
	var moves []board.LeagueResult
	for _, r := range rs {
		if r.Move != board.Stay {
			moves = append(moves, r)
		}
	}
	for chunk := range slices.Chunk(moves, closeChunk) {
		c := s.closeStep(b, p, "apply", "").in("move")
		for _, r := range chunk {
			c.arg("member", r.Member).arg("tier", r.Next)
		}
		if err := c.run(ctx, s.rdb).Err(); err != nil {
			return fmt.Errorf("league: apply %s of %q: %w", p, b.ID, err)
		}
	}
	return nil
}

// leagueOutcome works out every member's result of p's close from the
// period's own keys (not a freeze's copy): the members of each cohort,
// ranked in it, those placed there with no score now, and, when idle
// members drop a tier, the members of a tier above the lowest who did not
// play.
func (s segmentStore) leagueOutcome(ctx context.Context, b *board.Board, l *board.League, p board.Period) ([]board.LeagueResult, error) {
	z := ZSetKey(b.ID, p)
	counts, err := s.rdb.HGetAll(ctx, cohortCountKey(z)).Result()
	if err != nil {
		return nil, fmt.Errorf("league: cohorts of %s of %q: %w", p, b.ID, err)
	}
	var out []board.LeagueResult
	var unplayed map[string][]string // cohort -> placed members, read once if any cohort needs it
	for t := range l.Tiers {
		open, _ := strconv.Atoi(counts[strconv.Itoa(t)])
		for c := 1; c <= open; c++ {
			g := cohortGroup(t, c)
			es, err := s.wholeGroup(ctx, b, z, g)
			if err != nil {
				return nil, err
			}
			placed, _ := strconv.Atoi(counts[g.Value])
			idle := []string{}
			if placed > len(es) {
				if unplayed == nil {
					if unplayed, err = s.placesOf(ctx, z); err != nil {
						return nil, err
					}
				}
				played := map[string]bool{}
				for _, e := range es {
					played[e.Member] = true
				}
				for _, m := range unplayed[g.Value] {
					if !played[m] {
						idle = append(idle, m)
					}
				}
				slices.Sort(idle)
			}
			out = append(out, cohortResults(l, t, c, es, idle)...)
		}
	}
	if l.IdleDrops {
		away, err := s.awayMembers(ctx, b, z)
		if err != nil {
			return nil, err
		}
		for _, a := range away {
			next, m := l.Next(a.tier, board.Placed{Member: a.member})
			out = append(out, board.LeagueResult{Member: a.member, Tier: a.tier, Move: m, Next: next})
		}
	}
	return out, nil
}

// cohortResults are the results of cohort c of tier t: es its entries in
// order with their ranks in it, idle the members placed there without a
// score, who rank below every one of them.
func cohortResults(l *board.League, t, c int, es []board.Entry, idle []string) []board.LeagueResult {
	out := make([]board.LeagueResult, 0, len(es)+len(idle))
	for i, e := range es {
		worse := len(idle)
		for j := len(es) - 1; j > i && es[j].Rank > e.Rank; j-- {
			worse++
		}
		next, m := l.Next(t, board.Placed{Member: e.Member, Played: true, Rank: e.Rank, Worse: worse})
		out = append(out, board.LeagueResult{Member: e.Member, Tier: t, Cohort: c, Rank: e.Rank, Move: m, Next: next})
	}
	for _, id := range idle {
		next, m := l.Next(t, board.Placed{Member: id})
		out = append(out, board.LeagueResult{Member: id, Tier: t, Cohort: c, Move: m, Next: next})
	}
	return out
}

// wholeGroup reads every entry of group standing g of period zset z, in
// order, with its rank in the group.
func (s segmentStore) wholeGroup(ctx context.Context, b *board.Board, z string, g board.Segment) ([]board.Entry, error) {
	var out []board.Entry
	for {
		reply, err := groupCall(b, z, g, namesKey(b.ID), "page").in("page").arg("offset", len(out)).arg("limit", board.MaxPageSize).run(ctx, s.rdb).Result()
		if err != nil {
			return nil, fmt.Errorf("league: cohort %s of %q: %w", g.Value, b.ID, err)
		}
		pg, _, err := decodeGroup(b, board.Period{}, g, reply)
		if err != nil {
			return nil, err
		}
		out = append(out, pg.Entries...)
		if len(pg.Entries) < board.MaxPageSize || len(out) >= pg.Total {
			return out, nil
		}
	}
}

// placesOf reads every member's cohort in period zset z, by cohort.
func (s segmentStore) placesOf(ctx context.Context, z string) (map[string][]string, error) {
	out := map[string][]string{}
	iter := s.rdb.HScan(ctx, placesKey(z), 0, "", int64(closeChunk)).Iterator()
	for iter.Next(ctx) {
		m := iter.Val()
		if !iter.Next(ctx) {
			break
		}
		out[iter.Val()] = append(out[iter.Val()], m)
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("league: places in %s: %w", z, err)
	}
	return out, nil
}

// awayMember is a member of a tier above the lowest not placed in a period.
type awayMember struct {
	member string
	tier   int
}

// awayMembers are the members with a tier above the lowest who were not
// placed in period zset z (they did not play it), sorted.
func (s segmentStore) awayMembers(ctx context.Context, b *board.Board, z string) ([]awayMember, error) {
	var held []awayMember
	iter := s.rdb.HScan(ctx, tierKey(b.ID), 0, "", int64(closeChunk)).Iterator()
	for iter.Next(ctx) {
		m := iter.Val()
		if !iter.Next(ctx) {
			break
		}
		if t, err := strconv.Atoi(iter.Val()); err == nil && t > 0 {
			held = append(held, awayMember{m, min(t, len(b.League.Tiers)-1)})
		}
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("league: tiers of %q: %w", b.ID, err)
	}
	var out []awayMember
	for chunk := range slices.Chunk(held, closeChunk) {
		ids := make([]string, len(chunk))
		for i, a := range chunk {
			ids[i] = a.member
		}
		at, err := s.rdb.HMGet(ctx, placesKey(z), ids...).Result()
		if err != nil {
			return nil, fmt.Errorf("league: places in %s: %w", z, err)
		}
		for i, a := range chunk {
			if at[i] == nil {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, func(a, b awayMember) int { return strings.Compare(a.member, b.member) })
	return out, nil
}
