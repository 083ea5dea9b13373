package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// auditKeys are the keys a write records its audit entry in.
func auditKeys(c *luaCall, id string, by board.Author) *luaCall {
	return c.key("audit", AuditStream(id)).key("audit_actor", AuditActorStream(id, by.Actor)).key("audit_actors", AuditActors(id))
}

// RemoveMember takes a member out of one period, or, with a nil period, out
// of every period that holds data (and forgets the display name), and records
// it in the board's audit log in the same step.
func (s writer) RemoveMember(ctx context.Context, boardID, member string, p *board.Period, by board.Author) ([]board.Removed, error) {
	if err := by.Check(); err != nil {
		return nil, err
	}
	b, err := s.readBoard(ctx, boardID) // fresh: its script does not check the version
	if err != nil {
		return nil, err
	}
	if err := board.CheckMember(member); err != nil {
		return nil, fmt.Errorf("board: remove from %q: %w", boardID, err)
	}
	c := scripts.remove.call(13, 9).key("def", defKey(b.ID)).key("names", namesKey(b.ID)).key("names_lc", namesLowerKey(b.ID)).
		key("names_idx", nameIndexKey(b.ID)).key("periods", periodsKey(b.ID))
	auditKeys(c, b.ID, by).key("archive", ArchiveState(b.ID))
	if p != nil {
		z := ZSetKey(b.ID, *p)
		c.in("period").key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).key("counts", groupCountKey(z)).in("")
	}
	c.encoding(&b).arg("member", member).arg("actor", by.Actor).arg("reason", by.Reason).arg("audit_keep", s.auditKeep).arg("now", s.now().UnixMicro())
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return nil, fmt.Errorf("board: remove %q from %q: %w", member, boardID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return nil, fmt.Errorf("board: remove %q from %q: %w", member, boardID, err)
	}
	if st == "nf" {
		return nil, fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
	}
	if st == "archived" {
		return nil, fmt.Errorf("board: %s of %q is archived and no longer changes: %w", p, boardID, board.ErrArchived)
	}
	var out []board.Removed
	var zsets []string
	for i := 0; i+1 < len(rest); i += 2 {
		z, _ := rest[i].(string)
		score, _ := rest[i+1].(string)
		_, k, key, ok := ParseZSetKey(z)
		if !ok {
			continue
		}
		per, err := b.PeriodOf(k, key)
		if err != nil {
			continue
		}
		v, _ := strconv.ParseFloat(score, 64)
		out = append(out, board.Removed{Period: per, Score: v})
		zsets = append(zsets, z)
	}
	s.wrote(ctx, zsets...)
	return out, nil
}

// ResetPeriod empties one period of a board and returns how many members it
// held; the board's audit log records it in the same step.
func (s writer) ResetPeriod(ctx context.Context, boardID string, p board.Period, by board.Author) (int, error) {
	if err := by.Check(); err != nil {
		return 0, err
	}
	z := ZSetKey(boardID, p)
	c := scripts.reset.call(10, 5).key("def", defKey(boardID)).key("periods", periodsKey(boardID)).
		key("zset", z).key("entries", entriesKey(z)).key("distinct", distinctKey(z)).key("counts", groupCountKey(z))
	auditKeys(c, boardID, by).key("archive", ArchiveState(boardID)).
		arg("label", p.String()).arg("actor", by.Actor).arg("reason", by.Reason).arg("audit_keep", s.auditKeep).arg("now", s.now().UnixMicro())
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return 0, fmt.Errorf("board: reset %s of %q: %w", p, boardID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return 0, fmt.Errorf("board: reset %s of %q: %w", p, boardID, err)
	}
	if st == "nf" {
		return 0, fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
	}
	if st == "archived" {
		return 0, fmt.Errorf("board: %s of %q is archived and no longer changes: %w", p, boardID, board.ErrArchived)
	}
	n, _ := rest[0].(int64)
	s.wrote(ctx, z)
	return int(n), nil
}

// SetName sets a member's display name and returns the previous one; the
// board's audit log records it in the same step. A frozen board's public
// keeps seeing the name of the freeze (its script takes a freeze whose time
// has come first).
func (s writer) SetName(ctx context.Context, boardID, member, name string, by board.Author) (string, error) {
	if err := by.Check(); err != nil {
		return "", err
	}
	if err := board.CheckMember(member); err != nil {
		return "", fmt.Errorf("board: rename in %q: %w", boardID, err)
	}
	if err := board.CheckName(name); err != nil {
		return "", fmt.Errorf("board: rename %q in %q: %w", member, boardID, err)
	}
	c := scripts.rename.call(7, 7).key("def", defKey(boardID)).key("names", namesKey(boardID)).key("names_lc", namesLowerKey(boardID)).key("names_idx", nameIndexKey(boardID))
	auditKeys(c, boardID, by).arg("member", member).arg("name", name).arg("lower", strings.ToLower(name)).
		arg("actor", by.Actor).arg("reason", by.Reason).arg("audit_keep", s.auditKeep).arg("now", s.now().UnixMicro())
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return "", fmt.Errorf("board: rename %q in %q: %w", member, boardID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return "", fmt.Errorf("board: rename %q in %q: %w", member, boardID, err)
	}
	if st == "nf" {
		return "", fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
	}
	prev, _ := rest[0].(string)
	zsets, _ := s.rdb.SMembers(ctx, periodsKey(boardID)).Result()
	s.wrote(ctx, zsets...) // names show on every period's page
	return prev, nil
}

// Reindex rebuilds a period's tie-group index, which dense ranks read, from
// its scores (O(N)). Every write through the app or FCALL podium_submit keeps
// the index; this is for repairs after someone wrote the keys by hand, and for
// boards made before dense ranks were refused with the member tie-break,
// whose reads still call it when they meet a group the index lacks.
func (s catalog) Reindex(ctx context.Context, boardID string, p board.Period) (int, error) {
	b, err := s.readBoard(ctx, boardID) // fresh: its script does not check the version
	if err != nil {
		return 0, err
	}
	return s.reindex(ctx, &b, p)
}

func (s writer) reindex(ctx context.Context, b *board.Board, p board.Period) (int, error) {
	z := ZSetKey(b.ID, p)
	n, err := reindexCall(b, z).run(ctx, s.rdb).Int()
	if err != nil {
		return 0, fmt.Errorf("board: reindex %s of %q: %w", p, b.ID, err)
	}
	return n, nil
}

// Recent lists up to n of a board's latest changes, newest first.
func (s reader) Recent(ctx context.Context, b *board.Board, n int) ([]board.Activity, error) {
	r := s.RecentOf(ctx, []*board.Board{b}, n)[0]
	return r.Activities, r.Err
}

// RecentResult is one board's answer to RecentOf.
type RecentResult struct {
	Activities []board.Activity
	Err        error
}

// RecentOf lists the latest changes of many boards in two round trips,
// whatever their number: the lists in one pipeline, the display names in
// another. The live hub reads every board whose list changed this way. The
// public of a frozen board reads the list and the names as they stood at
// the freeze (redisstore/freeze.go); taking a freeze not yet seen taken costs a
// round trip more, once per process and freeze.
func (s reader) RecentOf(ctx context.Context, bs []*board.Board, n int) []RecentResult {
	out := make([]RecentResult, len(bs))
	lists := make([]*redis.StringSliceCmd, len(bs))
	frozen := make([]time.Time, len(bs))
	pipe := s.rdb.Pipeline()
	for i, b := range bs {
		since, err := s.publicFreeze(ctx, b)
		if err != nil {
			out[i].Err = err
			continue
		}
		key := recentKey(b.ID)
		if !since.IsZero() {
			key, frozen[i] = frozenRecentKey(b.ID), since
		}
		lists[i] = pipe.LRange(ctx, key, 0, int64(n)-1)
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own error
	names := make([]*redis.SliceCmd, len(bs))
	saved := make([]*redis.SliceCmd, len(bs)) // a frozen board's names at the freeze
	pipe = s.rdb.Pipeline()
	queued := false
	for i, b := range bs {
		if lists[i] == nil {
			continue // out[i].Err says why
		}
		raw, err := lists[i].Result()
		if err != nil {
			out[i].Err = fmt.Errorf("board: recent of %q: %w", b.ID, err)
			continue
		}
		var ids []string
		out[i].Activities, ids = decodeRecent(b, raw)
		if since := frozen[i]; !since.IsZero() {
			out[i].Activities, ids = madeBefore(out[i].Activities, ids, since)
		}
		if len(ids) > 0 {
			names[i] = pipe.HMGet(ctx, namesKey(b.ID), ids...)
			if !frozen[i].IsZero() {
				saved[i] = pipe.HMGet(ctx, frozenNamesKey(b.ID), ids...)
			}
			queued = true
		}
	}
	if queued {
		_, _ = pipe.Exec(ctx)
	}
	for i, b := range bs {
		if names[i] == nil {
			continue
		}
		got, err := names[i].Result()
		var then []any
		if err == nil && saved[i] != nil {
			then, err = saved[i].Result()
		}
		if err != nil {
			out[i] = RecentResult{Err: fmt.Errorf("board: recent of %q: %w", b.ID, err)}
			continue
		}
		nameActivities(out[i].Activities, got, then)
	}
	return out
}

// madeBefore keeps the changes (and their members' ids) made before a
// freeze at since. The frozen copy holds no change made since; a clock far
// behind on some writer is the one way one could be stamped so.
func madeBefore(acts []board.Activity, ids []string, since time.Time) ([]board.Activity, []string) {
	kept := acts[:0]
	var keptIDs []string
	for j, a := range acts {
		if a.Time.Before(since) {
			kept, keptIDs = append(kept, a), append(keptIDs, ids[j])
		}
	}
	return kept, keptIDs
}

// nameActivities gives each change its member's display name: got are the
// names now (HMGET), then, on a frozen board, the names at the freeze,
// which win ("" when the member had none).
func nameActivities(acts []board.Activity, got, then []any) {
	for j := range acts {
		acts[j].Name, _ = got[j].(string)
		if then != nil {
			if old, ok := then[j].(string); ok {
				acts[j].Name = old
			}
		}
		if acts[j].Name == "" {
			acts[j].Name = acts[j].Member
		}
	}
}

// decodeRecent reads a recent-changes list, and the members it names.
func decodeRecent(b *board.Board, raw []string) ([]board.Activity, []string) {
	out := make([]board.Activity, 0, len(raw))
	var ids []string
	for _, r := range raw {
		var doc struct {
			T       string       `json:"t"`
			M       string       `json:"m"`
			Op      string       `json:"op"`
			V       string       `json:"v"`
			Periods []changeJSON `json:"periods"`
			NoRanks bool         `json:"nr"`
		}
		if err := json.Unmarshal([]byte(r), &doc); err != nil {
			continue // not ours; keep showing the rest
		}
		us, _ := strconv.ParseInt(doc.T, 10, 64)
		v, _ := strconv.ParseFloat(doc.V, 64)
		a := board.Activity{Time: time.UnixMicro(us), Member: doc.M, Op: board.Op(doc.Op), Value: v}
		if res, err := decodeChanges(b, doc.Periods, !doc.NoRanks); err == nil {
			a.Changes = res.Changes
		}
		out = append(out, a)
		ids = append(ids, doc.M)
	}
	return out, ids
}

// StoredPeriods lists the periods of a board that hold data in Redis (the
// zsets its writes noted), all time included, in no particular order.
func (s reader) StoredPeriods(ctx context.Context, b *board.Board) ([]board.Period, error) {
	zsets, err := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: periods of %q: %w", b.ID, err)
	}
	out := make([]board.Period, 0, len(zsets))
	for _, z := range zsets {
		_, k, key, ok := ParseZSetKey(z)
		if !ok {
			continue
		}
		p, err := b.PeriodOf(k, key)
		if err != nil {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// Count is how many members a period of a board holds in Redis.
func (s reader) Count(ctx context.Context, b *board.Board, p board.Period) (int, error) {
	n, err := s.rdb.ZCard(ctx, ZSetKey(b.ID, p)).Result()
	if err != nil {
		return 0, fmt.Errorf("board: count %s of %q: %w", p, b.ID, err)
	}
	return int(n), nil
}
