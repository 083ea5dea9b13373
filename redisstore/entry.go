package redisstore

import (
	"strconv"
	"strings"
	"time"

	"podium/board"
)

// How ties are kept in Redis.
//
// The zset score is the member's real score, unchanged, so any finite float64
// is stored exactly and ZCOUNT can count strictly better scores. Redis orders
// equal scores by member bytes, so the zset member ("entry") starts with a
// fixed-width prefix that sorts tied members the way the board wants:
//
//	<field 1><field 2><field 3><time>|<member id>
//
// Each component is 16 lower-case hex digits: an int64 made unsigned by
// flipping its sign bit (so unsigned order is signed order) and complemented
// when the component must sort the other way. A board is read in ascending
// order when lower is better and in descending order (ZREVRANGE) when higher
// is better, so "better first in read order" means smaller bytes for
// lower-is-better boards and larger bytes for higher-is-better ones.
//
// The time is microseconds since 1970 (any int64, so any date), so two members
// are ordered by who reached their score first down to the microsecond; equal
// microseconds fall back to member id order. Boards with the "member"
// tie-break and no extra fields store the bare member id, which is what an
// outside writer's ZINCRBY produces, so such boards can be written directly.
//
// Limits: extra fields are int64; the prefix adds 17 to 65 bytes per entry.
const componentWidth = 16

// encoding is what a script needs to know about a board's entries.
type encoding struct {
	desc        bool // higher is better: read with ZREVRANGE
	fieldsWidth int  // characters of the extra-fields part
	prefixWidth int  // characters before '|'; 0 means entries are bare ids
	fields      []board.Field
	tieBreak    board.TieBreak
}

func encodingOf(b *board.Board) encoding {
	e := encoding{desc: b.Order == board.HigherIsBetter, fields: b.Fields, tieBreak: b.TieBreak}
	e.fieldsWidth = componentWidth * len(b.Fields)
	e.prefixWidth = e.fieldsWidth
	if b.TieBreak != board.ByMember {
		e.prefixWidth += componentWidth
	}
	return e
}

// component encodes v so that, in the board's read order, better values come
// first. higherBetter says which values of this component are better.
func (e encoding) component(v int64, higherBetter bool) string {
	u := uint64(v) ^ (1 << 63)
	if higherBetter != e.desc {
		u = ^u
	}
	s := strconv.FormatUint(u, 16)
	return strings.Repeat("0", componentWidth-len(s)) + s
}

func (e encoding) decodeComponent(s string, higherBetter bool) int64 {
	u, _ := strconv.ParseUint(s, 16, 64)
	if higherBetter != e.desc {
		u = ^u
	}
	return int64(u ^ (1 << 63))
}

// fieldsPart encodes extra field values; nil means all zero.
func (e encoding) fieldsPart(vals []int64) string {
	var b strings.Builder
	for i, f := range e.fields {
		var v int64
		if i < len(vals) {
			v = vals[i]
		}
		b.WriteString(e.component(v, f.Desc))
	}
	return b.String()
}

// timePart encodes the instant a member reached its score, or "" when the
// board breaks ties by member id.
func (e encoding) timePart(t time.Time) string {
	switch e.tieBreak {
	case board.Earliest:
		return e.component(t.UnixMicro(), false)
	case board.Latest:
		return e.component(t.UnixMicro(), true)
	}
	return ""
}

// split reads a member id and its extra field values from an entry.
func (e encoding) split(entry string) (id string, fields []int64) {
	if e.prefixWidth == 0 {
		return entry, nil
	}
	if len(entry) < e.prefixWidth+1 {
		return entry, nil // not ours: written by someone else; show as is
	}
	for i, f := range e.fields {
		fields = append(fields, e.decodeComponent(entry[i*componentWidth:(i+1)*componentWidth], f.Desc))
	}
	return entry[e.prefixWidth+1:], fields
}
