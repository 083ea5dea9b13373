package board

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// Snapshot is a copy of one period's scores, taken atomically, that a reader
// can page through while writes go on (the archiver reads closed periods
// whole this way: paging the live set by offset could skip or repeat a
// member that a late write or a removal moves). It costs the period's size in
// Redis memory until Close, or until it expires by itself.
type Snapshot struct {
	s     *Store
	b     *Board
	p     Period
	z     string
	names string // the names its pages show (a frozen board's public: those of the freeze)
	Total int    // members in the copy
	State string // the period's archive state when copied ("" none)
	// Teams is how many teams the copy's team standing holds: Snapshot
	// copies a team board's standing with its members (TeamPage).
	Teams int
	// Frozen is the freeze whose public copy this is (PublicSnapshot); zero
	// for the live standings.
	Frozen time.Time
}

// Snapshot copies a period's live standings (what the archiver keeps,
// whatever the public sees), and on a team board its team standing in the
// same step; ErrNotFound when the board is gone.
func (s *Store) Snapshot(ctx context.Context, b *Board, p Period, ttl time.Duration) (*Snapshot, error) {
	return s.snapshotOf(ctx, b, p, ZSetKey(b.ID, p), ttl, b.Teams != TeamsOff)
}

// snapshotOf copies the scores in zset from: a period's, or its frozen
// copy; with teams, from's team standing too.
func (s *Store) snapshotOf(ctx context.Context, b *Board, p Period, from string, ttl time.Duration, teams bool) (*Snapshot, error) {
	tok := make([]byte, 8)
	_, _ = rand.Read(tok)
	z := tagOf(b.ID) + ":snap:" + hex.EncodeToString(tok)
	keys := []string{defKey(b.ID), from, z, distinctKey(z), groupCountKey(z), ArchiveState(b.ID)}
	withTeams := "0"
	if teams {
		withTeams = "1"
	}
	reply, err := scripts.snapshot.Run(ctx, s.rdb, keys, append(prelude(b), max(int(ttl.Seconds()), 1), p.String(), withTeams)...).Result()
	if err != nil {
		return nil, fmt.Errorf("board: snapshot %s of %q: %w", p, b.ID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return nil, fmt.Errorf("board: snapshot %s of %q: %w", p, b.ID, err)
	}
	if st == "nf" {
		return nil, fmt.Errorf("board %q: %w", b.ID, ErrNotFound)
	}
	sn := &Snapshot{s: s, b: b, p: p, z: z, names: namesKey(b.ID), Total: toInt(rest[0])}
	if len(rest) > 1 {
		sn.State, _ = rest[1].(string)
	}
	if len(rest) > 2 {
		sn.Teams = toInt(rest[2])
	}
	return sn, nil
}

// Page reads entries of the copy, with ranks in the board's style.
func (sn *Snapshot) Page(ctx context.Context, offset, limit int) (Page, error) {
	if err := checkWindow(offset, limit); err != nil {
		return Page{}, err
	}
	return sn.s.viewOf(ctx, sn.b, sn.p, sn.z, sn.names, "page", offset, limit)
}

// TeamPage reads teams of the copy's team standing as Store.TeamPage reads
// a period's (the same script), but with the scores as Redis keeps them:
// averages are not rounded. Each entry's Member is a team id.
func (sn *Snapshot) TeamPage(ctx context.Context, offset, limit int) (Page, error) {
	if err := checkWindow(offset, limit); err != nil {
		return Page{}, err
	}
	return sn.s.teamView(ctx, sn.b, sn.p, teamZSetKey(sn.z), offset, limit)
}

// TeamSizes counts the members each listed team has in the copy.
func (sn *Snapshot) TeamSizes(ctx context.Context, teams []string) ([]int, error) {
	return sn.s.teamSizes(ctx, sn.b, sn.p, teamCountKey(sn.z), teams)
}

// Close drops the copy.
func (sn *Snapshot) Close(ctx context.Context) error {
	return sn.s.rdb.Del(ctx, sn.z, distinctKey(sn.z), groupCountKey(sn.z),
		teamZSetKey(sn.z), teamCountKey(sn.z), distinctKey(teamZSetKey(sn.z)), groupCountKey(teamZSetKey(sn.z))).Err()
}
