package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// ViewQuery is one window to read in a batch: a page (Offset, Limit) or, with
// Member set, the Radius entries around that member.
type ViewQuery struct {
	Board  *board.Board
	Period board.Period
	Offset int
	Limit  int
	Member string
	Radius int
	Teams  bool // a page of the period's team standing (redisstore/team.go)
	// Live reads a frozen board's live standings (an admin's view); others
	// read what the public sees (redisstore/freeze.go).
	Live bool
	// Members, when set, makes the view a list's (views_list.go): these
	// members' standings, ranked among themselves.
	Members []string
	// Segment, when set, makes a page (Offset, Limit) one of the segment's
	// standing (SegmentPage): ranks within it, GlobalRank beside. No
	// around-me, teams or list reads one.
	Segment board.Segment
}

// ViewResult is a query's page; Err is ErrNotFound when an around-me member
// has no score in the period.
type ViewResult struct {
	Page     board.Page
	Position int // the member's position, for around-me
	Err      error
}

// ReadViews reads many windows in one pipelined round trip: the live hub
// re-reads every watched view of the keys that changed in a tick at once.
// The around-me windows of one period (each viewer their own member) share
// one script call, so a tick costs one call per page and per watched
// period, however many members are watched.
func (s reader) ReadViews(ctx context.Context, qs []ViewQuery) []ViewResult {
	out := make([]ViewResult, len(qs))
	if len(qs) == 0 {
		return out
	}
	lists := s.readLists(ctx, qs, out)
	plan := s.planViews(ctx, qs, out)
	cmds, err := s.runViews(ctx, plan.calls)
	lists.Wait()
	for i, q := range qs {
		at := plan.at[i]
		if at.call < 0 {
			continue // out[i].Err says why
		}
		if cmds == nil || cmds[at.call] == nil {
			out[i].Err = fmt.Errorf("board: read views: %w", err)
			continue
		}
		reply, cerr := cmds[at.call].Result()
		if cerr == nil && at.item >= 0 {
			reply, cerr = aroundOf(reply, at.item, q.Radius)
		}
		if cerr != nil {
			out[i].Err = fmt.Errorf("board: read %s of %q: %w", q.Period, q.Board.ID, cerr)
			continue
		}
		out[i] = s.viewResult(ctx, q, reply, plan.frozen[i])
	}
	return out
}

// viewPlan is the script calls that answer a set of view queries.
type viewPlan struct {
	calls []*luaCall
	// at is each query's call (-1: none, its result's Err says why) and
	// its item in an arounds call's reply (-1: the call's whole reply).
	at []struct{ call, item int }
	// frozen is whether each query reads a frozen copy.
	frozen []bool
}

// planViews makes the view.lua calls that answer qs: one per page, one per
// period's around-me windows (arounds).
func (s reader) planViews(ctx context.Context, qs []ViewQuery, out []ViewResult) viewPlan {
	type group struct {
		zset, names string
		radius      int
		version     int64
	}
	plan := viewPlan{at: make([]struct{ call, item int }, len(qs)), frozen: make([]bool, len(qs))}
	groups := map[group]int{}
	members := map[int]int{} // an arounds call's members so far
	for i, q := range qs {
		if len(q.Members) > 0 { // a list's, answered on its own (listView)
			plan.at[i].call = -1
			continue
		}
		since, err := s.publicFreeze(queryCtx(ctx, q), q.Board)
		if err != nil {
			out[i].Err = err
			plan.at[i].call = -1
			continue
		}
		z, copied := periodSource(q.Board, q.Period, since)
		plan.frozen[i] = !copied.IsZero()
		names := namesOf(q.Board.ID, since)
		switch {
		case q.Teams:
			t := teamZSetKey(z)
			plan.calls = append(plan.calls, viewCall(board.TeamBoard(q.Board), t, teamNamesKey(q.Board.ID), "page", q.Offset, q.Limit))
			plan.at[i].call, plan.at[i].item = len(plan.calls)-1, -1
		case !q.Segment.IsZero():
			if q.Member != "" {
				out[i].Err, plan.at[i].call = fmt.Errorf("board: a segment's view is a page, not around %q: %w", q.Member, board.ErrInvalidInput), -1
				continue
			}
			plan.calls = append(plan.calls, groupCall(q.Board, z, q.Segment, names, "page").in("page").arg("offset", q.Offset).arg("limit", q.Limit))
			plan.at[i].call, plan.at[i].item = len(plan.calls)-1, -1
		case q.Member == "":
			plan.calls = append(plan.calls, viewCall(q.Board, z, names, "page", q.Offset, q.Limit))
			plan.at[i].call, plan.at[i].item = len(plan.calls)-1, -1
		default:
			g := group{z, names, q.Radius, q.Board.Version}
			c, ok := groups[g]
			if !ok {
				plan.calls = append(plan.calls, viewCall(q.Board, z, names, "arounds").arg("k", q.Radius))
				c = len(plan.calls) - 1
				groups[g] = c
			}
			plan.at[i].call, plan.at[i].item = c, members[c]
			members[c]++
			plan.calls[c].arg("member", q.Member)
		}
	}
	return plan
}

// runViews runs calls in one pipeline, loading view.lua and group.lua if
// Redis lost them.
func (s reader) runViews(ctx context.Context, calls []*luaCall) ([]*redis.Cmd, error) {
	run := func() ([]*redis.Cmd, error) {
		cmds := make([]*redis.Cmd, len(calls))
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, c := range calls {
				cmds[i] = c.evalSha(ctx, p)
			}
			return nil
		})
		return cmds, err
	}
	cmds, err := run()
	if err != nil && isNoScript(err) {
		for _, sc := range []*luaScript{scripts.view, scripts.group} {
			if lerr := sc.Load(ctx, s.rdb).Err(); lerr != nil {
				return cmds, lerr
			}
		}
		cmds, err = run()
	}
	return cmds, err
}

// viewResult decodes q's reply; frozen says it read a frozen copy. A view
// the pipelined read cannot answer exactly (a dense index an outside writer
// left behind, a closed period that may have expired to the archive) is
// read again on its own.
func (s reader) viewResult(ctx context.Context, q ViewQuery, reply any, frozen bool) ViewResult {
	if !q.Segment.IsZero() {
		pg, held, perr := decodeGroup(q.Board, q.Period, q.Segment, reply)
		if perr == nil && held == 0 && q.Period.Ended(s.now()) && !frozen { // maybe gone to the archive
			pg, perr = s.groupPage(queryCtx(ctx, q), q.Board, q.Period, q.Segment, q.Offset, q.Limit) // a segment's or a cohort's
		}
		return ViewResult{Page: pg, Err: perr}
	}
	if q.Teams {
		pg, _, perr := decodeTeamView(q.Board, q.Period, reply)
		if perr == nil && pg.Total == 0 && q.Period.Ended(s.now()) && !frozen {
			pg, perr = s.TeamPage(queryCtx(ctx, q), q.Board, q.Period, q.Offset, q.Limit)
			return ViewResult{Page: pg, Err: perr}
		}
		return ViewResult{Page: board.RoundTeams(q.Board, pg), Err: perr}
	}
	pg, pos, perr := decodeView(q.Board, q.Period, reply)
	closedEmpty := ((perr == nil && pg.Total == 0) || (q.Member != "" && errors.Is(perr, board.ErrNotFound))) &&
		q.Period.Ended(s.now()) && !frozen
	if (perr == nil && q.Board.DenseDrifts() && hasUnranked(pg)) || closedEmpty {
		if q.Member != "" {
			pg, pos, perr = s.Around(queryCtx(ctx, q), q.Board, q.Period, q.Member, q.Radius)
		} else {
			pg, perr = s.Page(queryCtx(ctx, q), q.Board, q.Period, q.Offset, q.Limit)
			pos = pg.Matched
		}
	}
	if errors.Is(perr, board.ErrNotFound) && q.Member != "" {
		perr = fmt.Errorf("board: member %q is not on %s of %q: %w", q.Member, q.Period, q.Board.ID, board.ErrNotFound)
	}
	return ViewResult{Page: pg, Position: pos, Err: perr}
}

func queryCtx(ctx context.Context, q ViewQuery) context.Context {
	if q.Live {
		return LiveStandings(ctx)
	}
	return ctx
}

// aroundOf cuts member item's window out of an arounds reply (view.lua) in
// the form of an around reply: {'nf'}, or {total, start, pos, rows...}.
func aroundOf(reply any, item, k int) (any, error) {
	arr, _ := reply.([]any)
	if len(arr) < 2 || 2+2*(item+1) > len(arr) {
		return nil, errors.New("short reply")
	}
	total, n := toInt(arr[0]), toInt(arr[1])
	start := toInt(arr[2+2*item])
	if start < 0 {
		return []any{"nf"}, nil
	}
	want := min(2*k+1, total-start) * 4 // values: 4 a row
	ranges := arr[2+2*n:]               // in order of their first position
	from := func(i int) int {
		if rng, _ := ranges[i].([]any); len(rng) > 0 {
			return toInt(rng[0])
		}
		return -1
	}
	// The last range that starts at or before the window holds it.
	i := sort.Search(len(ranges), func(i int) bool { return from(i) > start }) - 1
	if i >= 0 {
		rng, _ := ranges[i].([]any)
		if lo := 1 + (start-from(i))*4; lo+want <= len(rng) {
			return append([]any{arr[0], arr[2+2*item], arr[3+2*item]}, rng[lo:lo+want]...), nil
		}
	}
	return nil, fmt.Errorf("no rows for the window at %d", start)
}

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

func hasUnranked(pg board.Page) bool {
	for _, e := range pg.Entries {
		if e.Rank == 0 {
			return true
		}
	}
	return false
}

// decodeView reads the view script's reply: {total, first position, matched
// or member position, rows...}, or {'nf'}.
func decodeView(b *board.Board, p board.Period, reply any) (board.Page, int, error) {
	arr, _ := reply.([]any)
	if len(arr) == 1 {
		return board.Page{}, 0, board.ErrNotFound
	}
	if len(arr) < 3 {
		return board.Page{}, 0, fmt.Errorf("board: view of %q: short reply", b.ID)
	}
	pg := board.Page{Period: p, Total: toInt(arr[0]), Offset: toInt(arr[1]), Matched: toInt(arr[2])}
	enc := encodingOf(b)
	for i := 3; i+3 < len(arr); i += 4 {
		e := entryOf(enc, arr[i], arr[i+1], arr[i+3])
		e.Rank = toInt(arr[i+2])
		e.Position = pg.Offset + len(pg.Entries)
		pg.Entries = append(pg.Entries, e)
	}
	return pg, pg.Matched, nil
}
