package redisstore

import (
	"strings"

	"podium/board"
)

// Every Redis key the product uses is built here. A board's keys share the hash
// tag {<board>} so that they sit on one Redis Cluster slot and one Lua script
// may touch them all:
//
//	lb:boards                      set of board ids (the only untagged key)
//	lb:{chess}:def                 hash: the board's definition
//	lb:{chess}:gen                 counter: the last definition version, kept after a delete
//	lb:{chess}:names               hash: member id -> display name
//	lb:{chess}:names:lc            hash: member id -> lower-cased name (to find its index entry)
//	lb:{chess}:names:idx           zset, all scores 0: "<lower name>\x00<id>" for prefix search
//	lb:{chess}:recent              list: recent changes, newest first, capped
//	lb:{chess}:periods             set: the period zset keys that hold data
//	lb:{chess}:idem:<key>          string with a TTL: "<request fingerprint>\n<result>" of an idempotent submission
//	lb:{chess}:sched               hash: period kind -> upcoming periods, for FCALL podium_submit
//	lb:{chess}:audit               stream: the board's audit log, written by the same script as each change, capped in rows
//	lb:{chess}:audit:a:<actor>     stream: the same entries, one stream per actor ("by actor" without a scan)
//	lb:{chess}:audit:actors        set: the actors of the board's audit log
//	lb:{chess}:audit:rows          hash: audit stream key -> how many rows it holds (the cap counts rows; a batch is one entry)
//	lb:{chess}:audit:cut           string: the stream id of the board's newest board.delete entry (a board made again starts after it)
//	lb:{chess}:archive             hash: period ("week:2026-W47") -> archive state ("<pass> <unix µs>"), see archive/
//	lb:{chess}:archive:lock:<p>    string with a TTL: the replica archiving period p (its pass's token)
//	lb:{chess}:archive:snaps       hash with a TTL: snapshot key -> "<period> <token>" of the pass that took it
//	lb:{chess}:snap:<hex>          zset with a TTL: a copy of a period being archived (+ :d, :c, :t, :tn, :t:d, :t:c)
//	lb:audited                     set of board ids that have an audit log, deleted boards included (untagged)
//	lb:{chess}:all                 zset: all-time scores
//	lb:{chess}:w:2026-W47          zset: that week's scores (d:2026-11-22, m:2026-11, y:2026)
//	lb:{chess}:w:2026-W47:e        hash: member id -> its entry in the zset (tie-break boards)
//	lb:{chess}:w:2026-W47:d        zset: one entry per tie group, for dense ranks
//	lb:{chess}:w:2026-W47:c        hash: tie group -> how many members it holds
//	lb:{chess}:r:7d                zset: the rolling window's standings (r:24h, r:7d, r:30d), with :e, :d, :c as above
//	lb:{chess}:r:7d:b:2026-11-22   zset: one bucket of the window (hours: r:24h:b:2026-11-22T13, UTC), see window.go
//	lb:{chess}:r:7d:bs             set: the window's bucket ids that hold data
//	lb:{chess}:r:state             hash: per window, the oldest bucket still in it (its floor)
//	lb:{chess}:seg:<attr>          hash: member -> its value of a segment attribute (segment.go)
//	lb:{chess}:seg:<attr>:n        hash: value -> members holding it
//	lb:{chess}:w:2026-W47:g:<attr>:<value>  zset: a segment's standing (+ :gd:, :gc: tie groups; :gs the set of them)
//	lb:{chess}:erasures            hash: digest of an erased member's id -> "pending <pseudonym> <mode> <cut>"
//	                               while its erasure runs, "done <mode>" once finished (erase.go)
//	lb:{chess}:redact:<hex>        stream with a TTL: an audit stream being rewritten by an erasure
//	lb:{chess}:hooks               hash: the board's webhooks (package hooks); every other key of
//	                               its webhooks is named lb:{chess}:hooks:<...> (hooks/keys.go)
const (
	keyPrefix = "lb:"
	boardsKey = keyPrefix + "boards"
	// BoardsKey is the set of the ids of the boards that exist.
	BoardsKey = boardsKey
	// AuditedKey is the set of board ids whose audit streams may hold
	// entries: every board ever made, since a board's log outlives it.
	AuditedKey = keyPrefix + "audited"
)

// KeyPattern matches every key of every board; the live hub subscribes to it.
const KeyPattern = keyPrefix + "*"

func tagOf(id string) string { return keyPrefix + "{" + id + "}" }

func defKey(id string) string        { return tagOf(id) + ":def" }
func namesKey(id string) string      { return tagOf(id) + ":names" }
func namesLowerKey(id string) string { return tagOf(id) + ":names:lc" }
func nameIndexKey(id string) string  { return tagOf(id) + ":names:idx" }
func recentKey(id string) string     { return tagOf(id) + ":recent" }
func periodsKey(id string) string    { return tagOf(id) + ":periods" }
func idemKey(id, key string) string  { return tagOf(id) + ":idem:" + key }
func schedKey(id string) string      { return tagOf(id) + ":sched" }
func genKey(id string) string        { return tagOf(id) + ":gen" }
func entriesKey(zset string) string  { return zset + ":e" }
func erasuresKey(id string) string   { return tagOf(id) + ":erasures" }

// HooksKey is the hash of a board's webhook registrations (package hooks,
// whose other keys are named after it: HooksKey(id) + ":..."). Deleting the
// board deletes them in the same step as its scores (lua/dropboard.lua), so
// no registration, secret or queued delivery outlives the board.
func HooksKey(id string) string { return tagOf(id) + ":hooks" }

// DefKey is a board's definition; a script of another package checks that
// the board still exists in the step that writes beside it.
func DefKey(id string) string { return defKey(id) }

// AuditStream is a board's audit log: a stream in the board's hash slot, so
// the script that changes scores appends the entry in the same step.
func AuditStream(id string) string { return tagOf(id) + ":audit" }

// AuditActorStream holds the entries of one actor on one board.
func AuditActorStream(id, actor string) string { return tagOf(id) + ":audit:a:" + actor }

// AuditActors is the set of actors that appear in a board's audit log.
func AuditActors(id string) string { return tagOf(id) + ":audit:actors" }

// ArchiveState records, per closed period (field: Period.String), how far
// its archiving went: "<pass> <time µs>", "0 <time> changed" after a write
// to the closed period, and ExpiredMark appended once its keys expire
// (redisstore/past.go). Writes to a period and its archiving read it in their
// scripts: it shares the board's slot.
func ArchiveState(id string) string { return tagOf(id) + ":archive" }

// ArchiveLock is held by the replica archiving one period of a board.
func ArchiveLock(id string, p board.Period) string { return archiveLock(id, p.String()) }

func archiveLock(id, label string) string { return tagOf(id) + ":archive:lock:" + label }

// ArchiveSnaps records the snapshots archive passes took, each with the
// period and the token of the lock its pass held, so that a later pass can
// drop those of a pass that died (DropStaleSnapshots).
func ArchiveSnaps(id string) string { return tagOf(id) + ":archive:snaps" }

// AuditRows counts the rows each of a board's audit streams holds (field:
// the stream's key), and keeps the archive's mark of the board's stream
// (field "archived": the newest entry id the archive holds) and the rows
// trimmed before they were archived (field "unarchived"); see audit_trim
// in lua/lib/audit.lua and archive/audit.go.
func AuditRows(id string) string { return tagOf(id) + ":audit:rows" }

// AuditCut holds the stream id of the newest board.delete entry of board
// id: a board made again under the id shows its board users the entries
// after it only (audit.Filter.After), not an earlier board's.
func AuditCut(id string) string { return tagOf(id) + ":audit:cut" }

func distinctKey(zset string) string   { return zset + ":d" }
func groupCountKey(zset string) string { return zset + ":c" }

// ZSetKey is the sorted set that holds a board's scores for one period.
func ZSetKey(id string, p board.Period) string {
	if !p.Kind.Calendar() {
		return tagOf(id) + ":" + kindLetter(p.Kind)
	}
	return tagOf(id) + ":" + kindLetter(p.Kind) + ":" + p.Key
}

// ParseZSetKey reads a board id, period kind and period key back from a score
// sorted set's name; ok is false for every other key (definitions, indexes,
// per-period helpers). The live hub uses it to map notifications to views.
func ParseZSetKey(key string) (id string, k board.Kind, periodKey string, ok bool) {
	rest, found := strings.CutPrefix(key, keyPrefix+"{")
	if !found {
		return "", "", "", false
	}
	id, rest, found = strings.Cut(rest, "}:")
	if !found || id == "" {
		return "", "", "", false
	}
	for _, kind := range board.Kinds {
		if !kind.Calendar() && rest == kindLetter(kind) {
			return id, kind, "", true
		}
	}
	letter, pk, found := strings.Cut(rest, ":")
	if !found || strings.Contains(pk, ":") {
		return "", "", "", false
	}
	for _, kind := range board.Kinds {
		if kind.Calendar() && kindLetter(kind) == letter {
			return id, kind, pk, true
		}
	}
	return "", "", "", false
}

// ParseNamesKey reads the board id from a board's display-name hash key;
// the live hub refreshes every view of a board whose names changed.
func ParseNamesKey(key string) (id string, ok bool) { return parseBoardKey(key, ":names") }

// ParseRecentKey reads the board id from a board's recent-changes list; the
// live hub re-reads a board's recent changes when it changes.
func ParseRecentKey(key string) (id string, ok bool) { return parseBoardKey(key, ":recent") }

// ParseDefKey reads the board id from a board's definition key; the live
// hub re-reads the definition of a board with open views when it changes.
func ParseDefKey(key string) (id string, ok bool) { return parseBoardKey(key, ":def") }

func parseBoardKey(key, suffix string) (id string, ok bool) {
	rest, found := strings.CutPrefix(key, keyPrefix+"{")
	if !found {
		return "", false
	}
	id, found = strings.CutSuffix(rest, "}"+suffix)
	return id, found && id != "" && !strings.ContainsAny(id, "{}")
}

// A frozen board (redisstore/freeze.go) shows the public copies of its periods
// taken at the freeze, while writes go on to the live keys:
//
//	lb:{chess}:freeze              hash: at (µs), taken (µs, once copied), keys ("<live zset> <frozen zset> ...")
//	lb:{chess}:frz:w:2026-W47      zset: that week as it stood at the freeze (+ :e, :d, :c as the live one)
//	lb:{chess}:frz:recent          list: the recent changes as they stood at the freeze
//	lb:{chess}:frz:names           hash: member id -> its display name at the freeze ("" none), for the
//	                               members whose name changed since (the others' is the live one)
//	lb:{chess}:frz:names:idx       zset: the name index entries of those members at the freeze
//	lb:{chess}:frz:league:tier     hash: the members' league tiers at the freeze
//
// The frozen keys carry the "frz:" part before the period, so ParseZSetKey
// never takes them for live periods; the hub follows the freeze through its
// marker (ParseFreezeKey) and the definition instead.
func freezeKey(id string) string { return tagOf(id) + ":freeze" }

// heldKey is a board's review queue (redisstore/held.go, lua/lib/rules.lua):
// a hash of held write id -> JSON, beside its counter heldKey+":seq".
func heldKey(id string) string { return tagOf(id) + ":held" }

// HeldKeys are a board's review queue and its counter of held ids, for
// the webhooks' score.held (hooks/held.go).
func HeldKeys(id string) (queue, seq string) { return heldKey(id), heldKey(id) + ":seq" }

func frozenRecentKey(id string) string    { return tagOf(id) + ":frz:recent" }
func frozenNamesKey(id string) string     { return tagOf(id) + ":frz:names" }
func frozenNameIndexKey(id string) string { return tagOf(id) + ":frz:names:idx" }

// FrozenKey is the public copy of a period's sorted set while its board is
// frozen.
func FrozenKey(id string, p board.Period) string {
	return tagOf(id) + ":frz:" + strings.TrimPrefix(ZSetKey(id, p), tagOf(id)+":")
}

// ParseFreezeKey reads the board id from a board's freeze marker; the live
// hub re-reads every view of a board whose freeze was taken or lifted.
func ParseFreezeKey(key string) (id string, ok bool) { return parseBoardKey(key, ":freeze") }

// kindLetter is a period kind's short form inside Redis keys.
func kindLetter(k board.Kind) string {
	switch k {
	case board.Last24h:
		return "r:24h"
	case board.Last7d:
		return "r:7d"
	case board.Last30d:
		return "r:30d"
	case board.Daily:
		return "d"
	case board.Weekly:
		return "w"
	case board.Monthly:
		return "m"
	case board.Yearly:
		return "y"
	case board.Custom:
		return "c"
	}
	return "all"
}

// SegmentZSetKey is the standing of segment seg in period p of board id
// (redisstore/segment.go): the key the live hub watches for a segment's
// views.
func SegmentZSetKey(id string, p board.Period, seg board.Segment) string {
	g, _, _ := groupKeys(ZSetKey(id, p), seg)
	return g
}

// ParseSegmentKey reads a segment key back: z is the period's sorted set,
// standing the segment's standing for its standing and its tie groups
// (z:g:<attr>:<value>, z:gd:..., z:gc:...), "" for z:gs, the list of
// standings z holds. ok is false for every other key.
func ParseSegmentKey(key string) (z, standing string, ok bool) {
	end := strings.Index(key, "}:")
	if end < 0 {
		return "", "", false
	}
	at := strings.Index(key[end:], ":g")
	if at < 0 {
		return "", "", false
	}
	z, rest := key[:end+at], key[end+at+2:]
	if _, _, _, ok := ParseZSetKey(z); !ok {
		return "", "", false
	}
	switch {
	case rest == "s":
		return z, "", true
	case strings.HasPrefix(rest, ":"):
		return z, z + ":g" + rest, true
	case strings.HasPrefix(rest, "d:"), strings.HasPrefix(rest, "c:"):
		return z, z + ":g" + rest[1:], true
	}
	return "", "", false
}
