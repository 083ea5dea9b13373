package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// ErrNotOwner refuses an archive snapshot to a pass whose lock on the period
// has expired or been taken over: that pass may record nothing.
var ErrNotOwner = errors.New("the archive lock on the period is no longer this pass's")

// Snapshot is a copy of one period's scores, taken atomically, that a reader
// can page through while writes go on (the archiver reads closed periods
// whole this way: paging the live set by offset could skip or repeat a
// member that a late write or a removal moves). It costs the period's size in
// Redis memory until Close, or until it expires by itself.
type Snapshot struct {
	s     *Store
	b     *board.Board
	p     board.Period
	z     string
	names string // the names its pages show (a frozen board's public: those of the freeze)
	owned bool   // recorded in ArchiveSnaps (ArchiveSnapshot)
	Total int    // members in the copy
	State string // the period's archive state when copied ("" none)
	// Teams is how many teams the copy's team standing holds: Snapshot
	// copies a team board's standing with its members (TeamPage).
	Teams int
	// Frozen is the freeze whose public copy this is (PublicSnapshot); zero
	// for the live standings.
	Frozen time.Time
	// Attrs are the board's attributes whose members' values the copy
	// holds (Values): the board's segments when it was taken, and in a
	// period of its league's kind LeagueAttr, each member's cohort.
	Attrs []string
}

// LeagueAttr is the pseudo-attribute under which a snapshot (Values) and
// the archive carry a member's cohort in a period of the league's kind:
// "<tier>/<cohort>", the value of its cohort's group standing. No board
// attribute is upper-case, so it never meets one; it is not one of the
// board's attributes, and nothing that lists those shows it.
const LeagueAttr = board.CohortAttr

// Snapshot copies a period's live standings (what the archiver keeps,
// whatever the public sees), and on a team board its team standing in the
// same step; ErrNotFound when the board is gone.
func (s snapshots) Snapshot(ctx context.Context, b *board.Board, p board.Period, ttl time.Duration) (*Snapshot, error) {
	return s.snapshotOf(ctx, b, p, ZSetKey(b.ID, p), ttl, b.Teams != board.TeamsOff, "")
}

// ArchiveSnapshot is Snapshot for an archive pass that holds the period's
// lock (ArchiveLock) with token: refused with ErrNotOwner once the lock is
// no longer token's, and recorded with its owner in ArchiveSnaps, so that
// should the pass die before Close, a later one drops the copy
// (DropStaleSnapshots) instead of leaving it to its TTL.
func (s snapshots) ArchiveSnapshot(ctx context.Context, b *board.Board, p board.Period, ttl time.Duration, token string) (*Snapshot, error) {
	if token == "" {
		return nil, fmt.Errorf("board: archive snapshot %s of %q: no lock token", p, b.ID)
	}
	return s.snapshotOf(ctx, b, p, ZSetKey(b.ID, p), ttl, b.Teams != board.TeamsOff, token)
}

// snapshotOf copies the scores in zset from: a period's, or its frozen
// copy; with teams, from's team standing too; with an owner (an archive
// lock's token), only while the owner holds the period's lock.
func (s snapshots) snapshotOf(ctx context.Context, b *board.Board, p board.Period, from string, ttl time.Duration, teams bool, owner string) (*Snapshot, error) {
	tok := make([]byte, 8)
	_, _ = rand.Read(tok)
	z := tagOf(b.ID) + ":snap:" + hex.EncodeToString(tok)
	withTeams := "0"
	if teams {
		withTeams = "1"
	}
	attrs := slices.Clone(b.Segments)
	if b.League != nil && p.Kind == b.League.Kind {
		attrs = append(attrs, LeagueAttr)
	}
	c := scripts.snapshot.call(8+2*len(attrs), 8).key("def", defKey(b.ID)).key("zset", from).key("copy", z).
		key("copy_distinct", distinctKey(z)).key("copy_counts", groupCountKey(z)).key("archive", ArchiveState(b.ID)).
		key("snaps", ArchiveSnaps(b.ID)).key("lock", ArchiveLock(b.ID, p)).
		encoding(b).arg("ttl", max(int(ttl.Seconds()), 1)).arg("label", p.String()).arg("teams", withTeams).arg("owner", owner)
	for i, a := range b.Segments {
		c.in("segment").key("values", segValuesKey(b.ID, a)).key("copy_values", snapValuesKey(z, i))
	}
	if len(attrs) > len(b.Segments) { // the places of the league's cohorts, copied as an attribute's values
		c.in("segment").key("values", placesKey(from)).key("copy_values", snapValuesKey(z, len(b.Segments)))
	}
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return nil, fmt.Errorf("board: snapshot %s of %q: %w", p, b.ID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return nil, fmt.Errorf("board: snapshot %s of %q: %w", p, b.ID, err)
	}
	switch st {
	case "nf":
		return nil, fmt.Errorf("board %q: %w", b.ID, board.ErrNotFound)
	case "lost":
		return nil, fmt.Errorf("board: snapshot %s of %q: %w", p, b.ID, ErrNotOwner)
	}
	sn := &Snapshot{s: s.Store, b: b, p: p, z: z, names: namesKey(b.ID), owned: owner != "", Total: toInt(rest[0]), Attrs: attrs}
	if len(rest) > 1 {
		sn.State, _ = rest[1].(string)
	}
	if len(rest) > 2 {
		sn.Teams = toInt(rest[2])
	}
	return sn, nil
}

// Page reads entries of the copy, with ranks in the board's style.
func (sn *Snapshot) Page(ctx context.Context, offset, limit int) (board.Page, error) {
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	return sn.s.viewOf(ctx, sn.b, sn.p, sn.z, sn.names, "page", offset, limit)
}

// TeamPage reads teams of the copy's team standing as Store.TeamPage reads
// a period's (the same script), but with the scores as Redis keeps them:
// averages are not rounded. Each entry's Member is a team id.
func (sn *Snapshot) TeamPage(ctx context.Context, offset, limit int) (board.Page, error) {
	if err := board.CheckWindow(offset, limit); err != nil {
		return board.Page{}, err
	}
	return sn.s.teamView(ctx, sn.b, sn.p, teamZSetKey(sn.z), offset, limit)
}

// TeamSizes counts the members each listed team has in the copy.
func (sn *Snapshot) TeamSizes(ctx context.Context, teams []string) ([]int, error) {
	return sn.s.teamSizes(ctx, sn.b, sn.p, teamCountKey(sn.z), teams)
}

// Close drops the copy (and its record, if an archive pass took it).
func (sn *Snapshot) Close(ctx context.Context) error {
	_, err := sn.s.rdb.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Del(ctx, snapshotKeys(sn.z)...)
		if sn.owned {
			pipe.HDel(ctx, ArchiveSnaps(sn.b.ID), sn.z)
		}
		return nil
	})
	return err
}

// snapshotKeys are every key a snapshot z may hold: its scores, its tie
// groups, its team standing's (snapshot.lua) and the values of each
// attribute a board may have, and of LeagueAttr.
func snapshotKeys(z string) []string {
	ks := []string{z, distinctKey(z), groupCountKey(z),
		teamZSetKey(z), teamCountKey(z), distinctKey(teamZSetKey(z)), groupCountKey(teamZSetKey(z))}
	for i := range board.MaxSegments + 1 {
		ks = append(ks, snapValuesKey(z, i))
	}
	return ks
}

// snapValuesKey is snapshot z's copy of the values of the board's i-th
// attribute: named by place, so that every key a snapshot may hold is
// known without its board's definition.
func snapValuesKey(z string, i int) string { return z + ":sv:" + strconv.Itoa(i) }

// Values reads each listed member's values of the copy's attributes
// (Attrs), as they were when it was taken: one pipelined HMGET per
// attribute. A member without a value of an attribute lacks it; one
// without any has a nil map.
func (sn *Snapshot) Values(ctx context.Context, members []string) ([]map[string]string, error) {
	out := make([]map[string]string, len(members))
	if len(sn.Attrs) == 0 || len(members) == 0 {
		return out, nil
	}
	cmds, err := sn.s.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i := range sn.Attrs {
			pipe.HMGet(ctx, snapValuesKey(sn.z, i), members...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("board: values of a snapshot of %s of %q: %w", sn.p, sn.b.ID, err)
	}
	for i, c := range cmds {
		for j, v := range c.(*redis.SliceCmd).Val() {
			if v, ok := v.(string); ok {
				if out[j] == nil {
					out[j] = make(map[string]string, len(sn.Attrs))
				}
				out[j][sn.Attrs[i]] = v
			}
		}
	}
	return out, nil
}

// DropStaleSnapshots deletes the snapshots that archive passes recorded
// (ArchiveSnapshot) and whose lock their pass no longer holds: the pass
// died, or lost its lock and can record nothing, before it closed them.
// Each is checked and dropped in one script, so a pass that still holds
// its lock never loses its copy. It returns how many it dropped.
func (s snapshots) DropStaleSnapshots(ctx context.Context, b *board.Board) (int, error) {
	recs, err := s.rdb.HGetAll(ctx, ArchiveSnaps(b.ID)).Result()
	if err != nil {
		return 0, fmt.Errorf("board: archive snapshots of %q: %w", b.ID, err)
	}
	dropped := 0
	for z, rec := range recs {
		label, owner, ok := strings.Cut(rec, " ")
		if !ok || !strings.HasPrefix(z, tagOf(b.ID)+":snap:") {
			continue // not a record this version wrote
		}
		keys := snapshotKeys(z)
		n, err := scripts.dropsnap.call(2+len(keys), 3).key("snaps", ArchiveSnaps(b.ID)).key("lock", archiveLock(b.ID, label)).keysOf("snapshot", keys...).
			arg("snap", z).arg("record", rec).arg("owner", owner).
			run(ctx, s.rdb).Int()
		if err != nil {
			return dropped, fmt.Errorf("board: drop snapshot %s of %q: %w", z, b.ID, err)
		}
		dropped += n
	}
	return dropped, nil
}
