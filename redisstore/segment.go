package redisstore

// Segments (board/segment.go). A board that declares member attributes
// (country, class, division) keeps, beside each period's standings, one
// group standing per value of each attribute: a sorted set holding the
// period's own entries (the same entry, the same score) of the members who
// hold that value, kept by the same scripts that change the members'
// scores (submit, FCALL podium_submit_segments, remove, reset, the rolling
// windows' roll, the size cap, erasure) in the same atomic step
// (lua/lib/segments.lua). Since the entries are the period's, the
// tie-break and extra fields order them the same way, and a rank within a
// segment is the period's rank computation run on the segment's set.
//
// A member holds at most one value per attribute (lb:{b}:seg:<attr>,
// member -> value; lb:{b}:seg:<attr>:n counts the members of each value).
// Giving it a value, with a submission or on its own (SetSegment), moves
// its entries in every period the board holds in Redis from the old value's
// standing to the new one's, atomically.
//
// Per period zset z: z:g:<attr>:<value> (the standing), z:gd:<attr>:<value>
// and z:gc:<attr>:<value> (its tie groups, dense boards), and z:gs, the
// "<attr>:<value>" standings z holds. They expire, are reset, frozen and
// deleted with z.
//
// Limits: board.MaxSegments attributes, board.MaxSegmentValues values per
// attribute at a time (lua/lib/segments.lua's SEG_MAX_VALUES). Plain
// ZINCRBY from outside writers does not keep segment standings: they use
// FCALL podium_submit_segments (or podium_submit for a member whose values
// are set). Taking an attribute off a board drops its values and standings
// (dropSegments).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

func segValuesKey(id, attr string) string { return tagOf(id) + ":seg:" + attr }
func segCountKey(id, attr string) string  { return tagOf(id) + ":seg:" + attr + ":n" }

// groupKeys are segment seg's standing in period zset z and its tie groups.
func groupKeys(z string, seg board.Segment) (g, gd, gc string) {
	av := seg.Attr + ":" + seg.Value
	return z + ":g:" + av, z + ":gd:" + av, z + ":gc:" + av
}

// segmentsArg writes a submission's values as the submit script reads
// them: "<attr>\t<value>" pairs joined by tabs, by attribute.
func segmentsArg(vs map[string]string) string {
	if len(vs) == 0 {
		return ""
	}
	var w []string
	for _, a := range slices.Sorted(maps.Keys(vs)) {
		w = append(w, a, vs[a])
	}
	return strings.Join(w, "\t")
}

func segmentFullErr(attr any) error {
	return board.NewFieldError(board.ErrSegmentFull, "segments."+fmt.Sprint(attr),
		"already has %d values; a new one can be given once a value has no members left", board.MaxSegmentValues)
}

// SegmentValue is one value of an attribute and how many members hold it.
type SegmentValue struct {
	Value   string
	Members int
}

// SegmentsOf is a member's value of each of the board's attributes (an
// attribute it holds none of is absent).
func (s segmentStore) SegmentsOf(ctx context.Context, b *board.Board, member string) (map[string]string, error) {
	out := map[string]string{}
	if len(b.Segments) == 0 {
		return out, nil
	}
	cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, a := range b.Segments {
			p.HGet(ctx, segValuesKey(b.ID, a), member)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("board: segments of %q on %q: %w", member, b.ID, err)
	}
	for i, c := range cmds {
		if v, err := c.(*redis.StringCmd).Result(); err == nil {
			out[b.Segments[i]] = v
		}
	}
	return out, nil
}

// SegmentValues lists an attribute's values with their members, by value.
func (s segmentStore) SegmentValues(ctx context.Context, b *board.Board, attr string) ([]SegmentValue, error) {
	if !b.HasSegment(attr) {
		return nil, fmt.Errorf("board %q has no attribute %q: %w", b.ID, attr, board.ErrNotFound)
	}
	m, err := s.rdb.HGetAll(ctx, segCountKey(b.ID, attr)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: values of %q on %q: %w", attr, b.ID, err)
	}
	out := make([]SegmentValue, 0, len(m))
	for _, v := range slices.Sorted(maps.Keys(m)) {
		n, _ := strconv.Atoi(m[v])
		out = append(out, SegmentValue{Value: v, Members: n})
	}
	return out, nil
}

// SetSegment gives a member value value of attribute attr ("" takes it
// out), moving its scores in every period held in Redis, and records it in
// the audit log in the same step. It reports the value the member left and
// whether anything changed.
func (s segmentStore) SetSegment(ctx context.Context, boardID, member, attr, value string, by board.Author) (left string, changed bool, err error) {
	if err := by.Check(); err != nil {
		return "", false, err
	}
	if err := board.CheckMember(member); err != nil {
		return "", false, err
	}
	for attempt := 0; ; attempt++ {
		read := s.Board
		if attempt > 0 {
			read = s.readBoard // fresh: the cached definition was stale
		}
		b, err := read(ctx, boardID)
		if err != nil {
			return "", false, err
		}
		if err := board.CheckSegments(&b, map[string]string{attr: value}); err != nil {
			return "", false, err
		}
		c := scripts.setseg.call(5, 11).key("def", defKey(b.ID)).key("periods", periodsKey(b.ID))
		auditKeys(c, b.ID, by).encoding(&b).arg("member", member).arg("attr", attr).arg("value", value).arg("actor", by.Actor).
			arg("reason", by.Reason).arg("audit_keep", s.auditKeep).arg("version", strconv.FormatInt(b.Version, 10))
		st, rest, err := statusOf(c.run(ctx, s.rdb).Result())
		if err != nil {
			return "", false, fmt.Errorf("board: %s of %q on %q: %w", attr, member, boardID, err)
		}
		switch st {
		case "nf":
			return "", false, fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
		case "off", "stale":
			if attempt < 2 {
				continue
			}
			return "", false, fmt.Errorf("board %q: %w", boardID, board.ErrDefinitionChanged)
		case "full":
			return "", false, segmentFullErr(attr)
		}
		left, _ = rest[0].(string)
		moved, _ := rest[1].(string)
		if moved == "1" {
			s.wrote(ctx, s.segmentKeysOf(ctx, &b)...)
		}
		return left, moved == "1", nil
	}
}

// segmentKeysOf names the periods held, for the embedded store's
// notifications after a move: the hub reads their views again.
func (s segmentStore) segmentKeysOf(ctx context.Context, b *board.Board) []string {
	zs, _ := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
	return zs
}

// periodSegments lists the segments whose standings period zset z holds.
func (s segmentStore) periodSegments(ctx context.Context, z string) ([]board.Segment, error) {
	avs, err := s.rdb.SMembers(ctx, z+":gs").Result()
	if err != nil {
		return nil, err
	}
	out := make([]board.Segment, 0, len(avs))
	for _, av := range avs {
		a, v, _ := strings.Cut(av, ":")
		out = append(out, board.Segment{Attr: a, Value: v})
	}
	return out, nil
}

// afterUpdate brings the segment standings in line with definition b,
// which replaced old: the values and standings of attributes it no longer
// declares go, and the standings' tie groups follow a change to or from
// dense ranks. No write touches them meanwhile: writes under the old
// definition are refused by its version.
func (s segmentStore) afterUpdate(ctx context.Context, old, b *board.Board) error {
	var gone []string
	for _, a := range old.Segments {
		if !b.HasSegment(a) {
			gone = append(gone, a)
		}
	}
	restyle := (old.RankStyle == board.Dense) != (b.RankStyle == board.Dense)
	if len(gone) == 0 && !restyle {
		return nil
	}
	zs, err := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
	if err != nil {
		return fmt.Errorf("board: segments of %q: %w", b.ID, err)
	}
	for _, z := range zs {
		segs, err := s.periodSegments(ctx, z)
		if err != nil {
			return fmt.Errorf("board: segments of %s of %q: %w", z, b.ID, err)
		}
		for _, seg := range segs {
			if err := s.fixSegment(ctx, b, z, seg, slices.Contains(gone, seg.Attr)); err != nil {
				return fmt.Errorf("board: segment %s of %s of %q: %w", seg, z, b.ID, err)
			}
		}
	}
	for _, a := range gone {
		if err := s.rdb.Del(ctx, segValuesKey(b.ID, a), segCountKey(b.ID, a)).Err(); err != nil {
			return fmt.Errorf("board: values of %q on %q: %w", a, b.ID, err)
		}
	}
	return nil
}

// fixSegment drops segment seg's standing in period zset z, or builds its
// tie groups for b's rank style.
func (s segmentStore) fixSegment(ctx context.Context, b *board.Board, z string, seg board.Segment, drop bool) error {
	g, gd, gc := groupKeys(z, seg)
	switch {
	case drop:
		if err := s.rdb.Del(ctx, g, gd, gc).Err(); err != nil {
			return err
		}
		return s.rdb.SRem(ctx, z+":gs", seg.Attr+":"+seg.Value).Err()
	case b.RankStyle == board.Dense:
		return scripts.reindex.call(3, 4).key("zset", g).key("distinct", gd).key("counts", gc).encoding(b).run(ctx, s.rdb).Err()
	}
	return s.rdb.Del(ctx, gd, gc).Err()
}
