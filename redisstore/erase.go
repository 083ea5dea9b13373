package redisstore

// Erasure of a member: everything Redis holds of it in its board's hash
// slot goes in one script (lua/erase.lua), so a write for the member lands
// either before the erasure (and is erased with the rest) or after it, as
// a new member of that id. The board's audit streams are rewritten after
// that step, a chunk at a time (lua/redactstream.lua), so that a long log
// never holds Redis for long; their entries up to the erasure's cut are the
// member's. Each board keeps a record per erased id (erasuresKey, field: a
// digest of the id, never the id): the pseudonym and cut while parts are
// left, so that running the erasure again finishes it with the same ones,
// then only "done", so that a second erasure answers "already erased".
// Anyone who can read Redis and guesses an id can tell that it was erased,
// nothing more. Package memberdata runs the steps in their order.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"podium/board"
)

// HooksGroup is the consumer group of a board's webhook deliveries
// (package hooks): an erasure tells delivered entries from pending ones by
// it.
const HooksGroup = "podium"

// Erasure asks EraseMember to erase one member of a board.
type Erasure struct {
	Member    string
	Pseudonym string // board.NewPseudonym()
	Mode      board.EraseMode
	// Force records a new erasure though Redis holds nothing of the member
	// beyond its audit entries (they, or the archive, do).
	Force bool
	By    board.Author
}

// ErasureRecord is where an erasure of a member stands.
type ErasureRecord struct {
	Done      bool // every part finished; Pseudonym and Cut are no longer kept
	Pseudonym string
	Mode      board.EraseMode
	// Cut is the id of the erasure's own entry in the board's audit
	// stream: entries up to it that name the id are the erased member's,
	// later ones whoever holds the id since.
	Cut string
	raw string
}

func parseRecord(raw string) (*ErasureRecord, error) {
	f := strings.Fields(raw)
	switch {
	case len(f) == 2 && f[0] == "done":
		return &ErasureRecord{Done: true, Mode: board.EraseMode(f[1]), raw: raw}, nil
	case len(f) == 4 && f[0] == "pending":
		return &ErasureRecord{Pseudonym: f[1], Mode: board.EraseMode(f[2]), Cut: f[3], raw: raw}, nil
	}
	return nil, fmt.Errorf("an erasure record reads %q", raw)
}

// EraseStep is what EraseMember did.
type EraseStep struct {
	// Erased: Redis held something of the member (or Force), and this call
	// erased it; Record is the new erasure's.
	Erased bool
	// Record is the erasure of the id: this call's, or an earlier one's
	// when Redis held nothing of the member; nil when there is none.
	Record *ErasureRecord
	Items  int      // what this call changed
	Names  []string // the display names the member had
}

// ErasureDigest names a member's erasure record: a digest of the board and
// the id, so the record does not hold the id.
func ErasureDigest(boardID, member string) string {
	h := sha256.Sum256([]byte("podium erased member\x00" + boardID + "\x00" + member))
	return hex.EncodeToString(h[:])
}

// EraseMember erases a member in Redis (lua/erase.lua); the board's audit
// streams are left to RedactStream. In remove mode the member leaves the
// board's open periods (all time, windows, each enabled kind's current
// period) and is renamed in closed ones.
func (s eraser) EraseMember(ctx context.Context, boardID string, e Erasure) (EraseStep, error) {
	if err := e.By.Check(); err != nil {
		return EraseStep{}, err
	}
	if err := board.CheckMember(e.Member); err != nil {
		return EraseStep{}, err
	}
	mode, err := board.ParseEraseMode(string(e.Mode))
	if err != nil {
		return EraseStep{}, err
	}
	if !strings.HasPrefix(e.Pseudonym, board.ErasedPrefix) || e.Pseudonym == e.Member || board.CheckMember(e.Pseudonym) != nil {
		return EraseStep{}, fmt.Errorf("board: erase %q: the pseudonym %q is not one NewPseudonym makes", boardID, e.Pseudonym)
	}
	b, err := s.readBoard(ctx, boardID) // fresh: its script does not check the version
	if err != nil {
		return EraseStep{}, err
	}
	force := "0"
	if e.Force {
		force = "1"
	}
	id := b.ID
	c := scripts.erase.call(16, 14).key("def", defKey(id)).key("names", namesKey(id)).key("names_lc", namesLowerKey(id)).
		key("names_idx", nameIndexKey(id)).key("recent", recentKey(id)).key("periods", periodsKey(id)).key("archive", ArchiveState(id)).
		key("freeze", freezeKey(id)).key("team", teamKey(id)).key("teams", teamsKey(id)).key("hooks", HooksKey(id)).
		key("snaps", ArchiveSnaps(id)).key("erasures", erasuresKey(id)).key("audit", AuditStream(id)).
		key("audit_actor", AuditActorStream(id, e.By.Actor)).key("audit_actors", AuditActors(id)).
		encoding(&b).arg("member", e.Member).arg("pseudonym", e.Pseudonym).arg("mode", string(mode)).
		arg("digest", ErasureDigest(id, e.Member)).arg("force", force).arg("hooks_group", HooksGroup).arg("actor", e.By.Actor).
		arg("audit_keep", s.auditKeep).arg("now", s.now().UnixMicro())
	now := s.now()
	for _, k := range b.Periods {
		if k.Calendar() {
			c.arg("open", ZSetKey(id, b.Current(k, now)))
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eraseTimeout)
	defer cancel()
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return EraseStep{}, fmt.Errorf("board: erase a member of %q: %w", id, err)
	}
	return s.eraseReply(ctx, id, reply)
}

// eraseTimeout bounds the erasure's script: it walks every period and the
// webhook queue, more than a write does.
const eraseTimeout = time.Minute

// eraseReply reads erase.lua's answer.
func (s eraser) eraseReply(ctx context.Context, id string, reply any) (EraseStep, error) {
	st, rest, err := status(reply)
	if err != nil {
		return EraseStep{}, fmt.Errorf("board: erase a member of %q: %w", id, err)
	}
	if st == "nf" {
		return EraseStep{}, fmt.Errorf("board %q: %w", id, board.ErrNotFound)
	}
	what, _ := rest[0].(string)
	var out EraseStep
	if what == "none" {
		return out, nil
	}
	raw, _ := rest[1].(string)
	if out.Record, err = parseRecord(raw); err != nil {
		return EraseStep{}, fmt.Errorf("board: erase a member of %q: %w", id, err)
	}
	if what != "erased" || len(rest) < 5 {
		return out, nil
	}
	out.Erased, out.Items = true, toInt(rest[2])
	names, _ := rest[3].([]any)
	for _, n := range names {
		if n, ok := n.(string); ok {
			out.Names = append(out.Names, n)
		}
	}
	zsets, _ := rest[4].([]any)
	var keys []string
	for _, z := range zsets {
		if z, ok := z.(string); ok {
			keys = append(keys, z)
		}
	}
	s.wrote(ctx, append(keys, namesKey(id))...)
	return out, nil
}

// FinishErasure records that every part of an erasure is done: the record
// keeps neither pseudonym nor cut. A record that changed since rec was read
// (a new erasure of the id) is left as it is.
func (s eraser) FinishErasure(ctx context.Context, boardID, member string, rec ErasureRecord) error {
	if rec.Done {
		return nil
	}
	err := scripts.erased.call(1, 3).key("erasures", erasuresKey(boardID)).arg("digest", ErasureDigest(boardID, member)).
		arg("pending", rec.raw).arg("done", "done "+string(rec.Mode)).run(ctx, s.rdb).Err()
	if err != nil {
		return fmt.Errorf("board: finish an erasure on %q: %w", boardID, err)
	}
	return nil
}

// Redaction is what an erasure takes out of audit entries: the member's id
// (replaced by Pseudonym) and the display names it had, in the entries of
// Board up to Cut (lua/lib/redact.lua says how; audit/redact.go is its twin
// in Go).
type Redaction struct {
	Board, Member, Pseudonym string
	Names                    []string
	Cut                      string
}

// redactChunk is how many entries each call of redactstream.lua copies: a
// batch's entry holds up to a thousand rows.
const redactChunk = 64

// redactTTL is how long a rewrite's copy outlives its last chunk.
const redactTTL = time.Hour

// errRedactSlot refuses a stream whose name puts no other key in its slot.
var errRedactSlot = errors.New("no key can share this stream's hash slot")

// RedactStream rewrites an audit stream (a board's, an actor's, or one of
// the global ones of package audit) without the member, keeping every
// entry's id, and says how many entries changed. Each call of the script
// is atomic; the stream keeps taking entries meanwhile.
func (s eraser) RedactStream(ctx context.Context, key string, r Redaction) (int, error) {
	cp, ok := copyKeyOf(key)
	if !ok {
		return 0, fmt.Errorf("board: redact %s: %w", key, errRedactSlot)
	}
	names := make([]any, len(r.Names))
	for i, n := range r.Names {
		names[i] = n
	}
	for range 3 {
		after, changed := "", 0
		for {
			reply, err := scripts.redactstream.call(2, 7+len(names)).key("stream", key).key("copy", cp).
				arg("member", r.Member).arg("pseudonym", r.Pseudonym).arg("cut", r.Cut).arg("after", after).
				arg("count", redactChunk).arg("ttl", redactTTL.Milliseconds()).arg("board", r.Board).args("names", names...).run(ctx, s.rdb).Result()
			if err != nil {
				return 0, fmt.Errorf("board: redact %s: %w", key, err)
			}
			st, rest, err := status(reply)
			if err != nil {
				return 0, fmt.Errorf("board: redact %s: %w", key, err)
			}
			if st == "done" {
				return changed + toInt(rest[0]), nil
			}
			if st != "more" {
				break // "again": the stream changed under the copy
			}
			after, _ = rest[0].(string)
			changed += toInt(rest[1])
		}
	}
	return 0, fmt.Errorf("board: redact %s: the stream kept changing under its copy; try again", key)
}

// copyKeyOf is a fresh key in the hash slot of key, for its rewrite: key's
// own hash tag, or key itself as the tag; false when key's name allows
// neither (braces that make no tag).
func copyKeyOf(key string) (string, bool) {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	suffix := ":redact:" + hex.EncodeToString(b)
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[:i+j+2] + suffix, true
		}
	}
	if strings.Contains(key, "}") {
		return "", false
	}
	return "{" + key + "}" + suffix, true
}

// AuditStreams are a board's audit streams: the board's, then one per
// actor.
func (s eraser) AuditStreams(ctx context.Context, boardID string) ([]string, error) {
	actors, err := s.rdb.SMembers(ctx, AuditActors(boardID)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: audit streams of %q: %w", boardID, err)
	}
	out := []string{AuditStream(boardID)}
	for _, a := range actors {
		out = append(out, AuditActorStream(boardID, a))
	}
	return out, nil
}
