package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// MemberData is what Redis holds of one member of a board, for the copy of
// a person's data (package memberdata): its display name and team, and its
// standing in every period the board holds in Redis (open ones, rolling
// windows, and closed ones not yet expired), as the console sees them
// (live, whatever a freeze shows the public).
type MemberData struct {
	Name      string // "" none
	Team      string // "" none
	Friends   []string
	Segments  map[string]string
	Standings []board.Standing
	// More: the member holds scores in more periods than were asked for.
	More bool
}

// memberChunk is how many periods one script call reads the member in.
const memberChunk = 200

// MemberData reads a member's data: at most max standings, the newest
// periods first.
func (s eraser) MemberData(ctx context.Context, b *board.Board, member string, max int) (MemberData, error) {
	if err := board.CheckMember(member); err != nil {
		return MemberData{}, err
	}
	var out MemberData
	var name, team *redis.StringCmd
	var friends *redis.StringSliceCmd
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		name = p.HGet(ctx, namesKey(b.ID), member)
		team = p.HGet(ctx, teamKey(b.ID), member)
		friends = p.SMembers(ctx, friendsKey(b.ID, member))
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return MemberData{}, fmt.Errorf("board: data of %q on %q: %w", member, b.ID, err)
	}
	out.Name, out.Team, out.Friends = name.Val(), team.Val(), friends.Val()
	slices.Sort(out.Friends)
	segs, err := s.segmentStore.SegmentsOf(ctx, b, member)
	if err != nil {
		return MemberData{}, err
	}
	if len(segs) > 0 {
		out.Segments = segs
	}
	if out.Name == member {
		out.Name = "" // named by its id only, as every member is on first sight
	}
	ps, err := s.StoredPeriods(ctx, b)
	if err != nil {
		return MemberData{}, err
	}
	slices.SortFunc(ps, func(x, y board.Period) int {
		return cmp.Or(y.Start.Compare(x.Start), strings.Compare(x.String(), y.String()))
	})
	ctx = LiveStandings(ctx)
	for from := 0; from < len(ps) && !out.More; from += memberChunk {
		sts, err := s.standings(ctx, b, ps[from:min(len(ps), from+memberChunk)], []string{member})
		if err != nil {
			return MemberData{}, err
		}
		for _, st := range sts {
			if !st[0].Ranked {
				continue
			}
			if len(out.Standings) == max {
				out.More = true
				break
			}
			out.Standings = append(out.Standings, st[0])
		}
	}
	return out, nil
}
