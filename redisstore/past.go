package redisstore

// Closed periods outlive their keys: once the archiver has copied a period
// and its board's retention lets it go, the keys expire from Redis and every
// read of the period (pages, around-me, ranks, search, score ranges, the
// live hub's views) is answered from the archive instead, with the ranks,
// names and ties it had when it closed. The archive state hash in the
// board's slot (ArchiveState) says which periods went: a field per period,
// "<pass> <time µs>", with " x<time µs>" appended once its keys were set to
// expire. Only that mark sends a read to the archive: an empty closed period
// without it is simply empty.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// Past is where closed periods are read once their keys have left Redis: the
// archive (package archive implements it). Periods are named as
// Period.String; entries come in board order with the ranks archived.
type Past interface {
	// Held is how many members the past holds of a period, and whether it
	// holds the period at all (a period emptied by removals is held, with 0).
	Held(ctx context.Context, boardID, period string) (members int, held bool, err error)
	// Rows are the entries at positions offset..offset+limit-1.
	Rows(ctx context.Context, boardID, period string, offset, limit int) ([]board.Entry, error)
	// Find is the entry of each listed member that the period holds.
	Find(ctx context.Context, boardID, period string, members []string) (map[string]board.Entry, error)
	// GroupEnd is the last position of e's tie group (the entries with its
	// score and extra fields), as lua/lib/ranks.lua's group_end.
	GroupEnd(ctx context.Context, boardID, period string, e board.Entry) (int, error)
	// Search finds up to limit entries whose name, in lower case, starts
	// with prefix (already lower case): the first limit by name (then
	// member id, byte order), as Redis' name index finds them, listed in
	// board order.
	Search(ctx context.Context, boardID, period, prefix string, limit int) ([]board.Entry, error)
	// Range lists entries whose score lies in [min, max] from the offset-th
	// of them on, how many there are in all, and how many rank above the
	// range (higher: higher scores are better).
	Range(ctx context.Context, boardID, period string, min, max float64, higher bool, offset, limit int) (entries []board.Entry, matched, above int, err error)
	// TeamHeld is how many teams the past holds of a period's team
	// standing (redisstore/team.go), the team mode it was made under, and
	// whether it holds that standing at all: a period archived before team
	// standings were, or while its board kept none, holds its members only.
	TeamHeld(ctx context.Context, boardID, period string) (teams int, mode board.TeamMode, held bool, err error)
	// TeamRows are the team standing's rows at positions
	// offset..offset+limit-1, as TeamPage read them (Member is the team id),
	// the scores as Redis kept them (averages unrounded).
	TeamRows(ctx context.Context, boardID, period string, offset, limit int) ([]board.Entry, error)
	// TeamSizes is how many members each listed team that the standing
	// holds counted in the period.
	TeamSizes(ctx context.Context, boardID, period string, teams []string) (map[string]int, error)
	// SegmentHeld is how many members segment seg held in a period, and
	// whether the past holds the period's segments at all: a period
	// archived before segments were, while its board had that attribute,
	// holds its members only.
	SegmentHeld(ctx context.Context, boardID, period string, seg board.Segment) (members int, held bool, err error)
	// SegmentRows are the segment's entries at its places
	// offset..offset+limit-1: Rank and Position within the segment,
	// GlobalRank and GlobalPosition on the period, as SegmentPage reads them.
	SegmentRows(ctx context.Context, boardID, period string, seg board.Segment, offset, limit int) ([]board.Entry, error)
	// SegmentFind is the entry, as SegmentRows gives it, of each listed
	// member that the segment holds.
	SegmentFind(ctx context.Context, boardID, period string, seg board.Segment, members []string) (map[string]board.Entry, error)
	// SegmentGroupEnd is the last place in the segment of e's tie group
	// (e as SegmentFind gives it).
	SegmentGroupEnd(ctx context.Context, boardID, period string, seg board.Segment, e board.Entry) (int, error)
	// Race is a period's race (race.go) as archived, oldest point first;
	// none for a period archived before races were kept.
	Race(ctx context.Context, boardID, period string) ([]board.RacePoint, error)
	// Leagues' cohorts and results (league_past.go). A cohort's standing
	// is the segment {LeagueAttr, "<tier>/<cohort>"} above.
	LeaguePast
}

// WithPast reads closed periods whose keys have expired from p.
func WithPast(p Past) Option { return func(s *Store) { s.past = p } }

// ExpiredMark is what the archive state of a period ends with once its keys
// were set to expire.
const ExpiredMark = " x"

// FromPast says whether a read of period p, of which Redis holds nothing,
// is answered from the archive: p closed and its keys expired once
// archived. A period that expired but that the archive does not hold is
// ErrGone, so nobody mistakes a lost period for an empty one.
func (s reader) FromPast(ctx context.Context, b *board.Board, p board.Period) (bool, error) {
	_, past, err := s.pastTotal(ctx, b, p)
	return past, err
}

// pastTotal is FromPast with the members the archive holds of p, which
// every read from the archive needs.
func (s reader) pastTotal(ctx context.Context, b *board.Board, p board.Period) (total int, past bool, err error) {
	if !p.Ended(s.now()) {
		return 0, false, nil
	}
	v, err := s.rdb.HGet(ctx, ArchiveState(b.ID), p.String()).Result()
	if errors.Is(err, redis.Nil) || (err == nil && !strings.Contains(v, ExpiredMark)) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("board: archive state of %s of %q: %w", p, b.ID, err)
	}
	if s.past == nil {
		return 0, false, fmt.Errorf("board: %s of %q was archived and has left Redis, and no archive is configured: %w", p, b.ID, board.ErrGone)
	}
	total, held, err := s.past.Held(ctx, b.ID, p.String())
	if err != nil {
		return 0, false, err
	}
	if !held {
		return 0, false, fmt.Errorf("board: %s of %q has left Redis and the archive does not hold it: %w", p, b.ID, board.ErrGone)
	}
	return total, true, nil
}

// pastView answers a view of an expired period from the archive: a page,
// the window around a member, or a score range, as viewOf's modes.
func (s reader) pastView(ctx context.Context, b *board.Board, p board.Period, total int, mode string, margs ...any) (board.Page, error) {
	id, period := b.ID, p.String()
	var err error
	pg := board.Page{Period: p, Total: total, Matched: total}
	switch mode {
	case "page":
		pg.Offset = margs[0].(int)
		pg.Entries, err = s.past.Rows(ctx, id, period, pg.Offset, margs[1].(int))
	case "around":
		member, k := margs[0].(string), margs[1].(int)
		found, ferr := s.past.Find(ctx, id, period, []string{member})
		if ferr != nil {
			return board.Page{}, ferr
		}
		e, ok := found[member]
		if !ok {
			return board.Page{}, fmt.Errorf("board: member %q is not on %s of %q: %w", member, p, b.ID, board.ErrNotFound)
		}
		// The window slides to stay 2k+1 long near either end, as view.lua's.
		pg.Offset = max(0, min(e.Position-k, total-(2*k+1)))
		pg.Matched = e.Position
		pg.Entries, err = s.past.Rows(ctx, id, period, pg.Offset, 2*k+1)
	case "range": // bounds as scoreBounds writes them: ParseFloat reads "+inf" too
		lo, _ := strconv.ParseFloat(margs[0].(string), 64)
		hi, _ := strconv.ParseFloat(margs[1].(string), 64)
		var above int
		pg.Entries, pg.Matched, above, err = s.past.Range(ctx, id, period, lo, hi, b.Order == board.HigherIsBetter, margs[2].(int), margs[3].(int))
		pg.Offset = above + margs[2].(int) // as view.lua: the first row's position
	case "after": // margs as PageAfter gives them to view.lua
		score, _ := strconv.ParseFloat(margs[0].(string), 64)
		pg.Offset, pg.Entries, err = s.pastAfter(ctx, b, p, score, margs[1].(string), margs[2].(int), margs[3].(int))
	default:
		return board.Page{}, fmt.Errorf("board: no past view %q", mode)
	}
	if err != nil {
		return board.Page{}, err
	}
	return pg, nil
}

// pastStandings is standings for one expired period.
func (s reader) pastStandings(ctx context.Context, b *board.Board, p board.Period, total int, members []string) ([]board.Standing, error) {
	id, period := b.ID, p.String()
	found, err := s.past.Find(ctx, id, period, members)
	if err != nil {
		return nil, err
	}
	out := make([]board.Standing, len(members))
	for i, m := range members {
		st := board.Standing{Period: p, Member: m, Name: m, Total: total}
		if e, ok := found[m]; ok {
			end, err := s.past.GroupEnd(ctx, id, period, e)
			if err != nil {
				return nil, err
			}
			st.Name, st.Ranked, st.Score, st.Rank, st.Position, st.Worse = e.Name, true, e.Score, e.Rank, e.Position, total-1-end
		}
		out[i] = st
	}
	return out, nil
}

// standingsPast answers from the archive the periods of a standings read
// that Redis holds nothing of and that have expired.
// A frozen board's public copy (frozen[i]) is the whole answer.
func (s reader) standingsPast(ctx context.Context, b *board.Board, ps []board.Period, members []string, out [][]board.Standing, frozen []bool) ([][]board.Standing, error) {
	for i, p := range ps {
		if (len(out[i]) > 0 && out[i][0].Total > 0) || frozen[i] {
			continue
		}
		total, past, err := s.pastTotal(ctx, b, p)
		if err != nil {
			return nil, err
		}
		if past {
			if out[i], err = s.pastStandings(ctx, b, p, total, members); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// ExpirePeriod sets a closed period's keys to expire after ttl and takes it
// out of the board's periods set, if its archive state is still state: what
// the archiver read before it checked the archive's copy. It reports whether
// it did; from then on the period is read from the archive and no longer
// changes (RemoveMember and ResetPeriod refuse it with ErrArchived).
func (s snapshots) ExpirePeriod(ctx context.Context, b *board.Board, p board.Period, state string, ttl time.Duration) (bool, error) {
	if !p.Ended(s.now()) {
		return false, fmt.Errorf("board: %s of %q has not closed; it cannot expire", p, b.ID)
	}
	z := ZSetKey(b.ID, p)
	n, err := scripts.expire.call(6, 4).key("archive", ArchiveState(b.ID)).key("periods", periodsKey(b.ID)).
		key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).key("counts", groupCountKey(z)).
		arg("label", p.String()).arg("state", state).arg("ttl", max(ttl.Milliseconds(), 1)).arg("now", s.now().UnixMicro()).
		run(ctx, s.rdb).Int()
	if err != nil {
		return false, fmt.Errorf("board: expire %s of %q: %w", p, b.ID, err)
	}
	if n == 1 {
		s.wrote(ctx, z)
	}
	return n == 1, nil
}
