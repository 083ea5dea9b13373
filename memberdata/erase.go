package memberdata

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// The parts of an erasure, in the order they run (board.Erased's Done and
// Pending name them).
const (
	PartRedis   = "redis"   // scores, names, teams, recent changes, webhook state and queued deliveries
	PartAudit   = "audit"   // the audit log's streams in Redis
	PartLinks   = "links"   // the member's personal links, revoked
	PartArchive = "archive" // archived periods and audit entries in SQL
	PartRecord  = "record"  // the erasure's record, which then keeps no pseudonym
)

// ErrIncomplete: an erasure did some of its parts and failed at the next
// (board.Erased says which); running it again finishes them.
var ErrIncomplete = errors.New("erasure incomplete")

// Erase erases member from every store, in an order that a failure halfway
// leaves safe and a second run finishes: first Redis, in one atomic step
// (from then on the member's scores, name and team are gone or under the
// pseudonym, and a write for its id is a new member's), then the audit
// streams in Redis, then the archive (its period rows under their archiving
// locks, its audit entries once the redacted stream is copied), then the
// record. A run that finds Redis erased already goes on from the record
// the first one left, with its pseudonym and mode. An id of which nothing
// is left answers board.ErasedBefore when it was erased, ErrNoMember when
// it never was. The erasure goes on whatever the caller does meanwhile.
func (s *Service) Erase(ctx context.Context, b *board.Board, member string, mode board.EraseMode, by board.Author) (board.Erased, error) {
	if err := board.CheckMember(member); err != nil {
		return board.Erased{}, err
	}
	ctx = context.WithoutCancel(ctx)
	out := board.Erased{Board: b.ID, Mode: mode, Done: []string{}}
	e := redisstore.Erasure{Member: member, Pseudonym: board.NewPseudonym(), Mode: mode, By: by}
	st, err := s.Store.EraseMember(ctx, b.ID, e)
	if err != nil {
		return out, err
	}
	// The archive's traces: the names it knows the member by. Should it be
	// unreachable, the audit streams are redacted all the same, and the
	// archive's part is left for the next run.
	archNames, archHolds, archErr := s.archiveTraces(ctx, b, member)
	if !st.Erased && (st.Record == nil || st.Record.Done) {
		if archErr != nil {
			return out, archErr // nothing done
		}
		// Nothing of the member in Redis's structures, and no erasure under
		// way: its traces may be left in the audit log or the archive.
		left, err := s.traces(ctx, b.ID, member, archHolds)
		if err != nil {
			return out, err // nothing done
		}
		switch {
		case !left && st.Record != nil:
			out.Status, out.Mode = board.ErasedBefore, st.Record.Mode
			return out, nil
		case !left:
			return out, noMember(b.ID, member)
		}
		e.Force = true
		if st, err = s.Store.EraseMember(ctx, b.ID, e); err != nil {
			return out, err
		}
	}
	rec := *st.Record
	out.Mode, out.Pseudonym = rec.Mode, rec.Pseudonym
	if st.Erased {
		out.Done = append(out.Done, PartRedis)
	}
	return s.finish(ctx, b, member, rec, append(st.Names, archNames...), archErr, out)
}

// finish runs the parts after the Redis step; archErr is why the archive
// could not be read (nil: it could).
func (s *Service) finish(ctx context.Context, b *board.Board, member string, rec redisstore.ErasureRecord, names []string, archErr error, out board.Erased) (board.Erased, error) {
	if err := s.revokeLinks(ctx, b.ID, member); err != nil {
		return s.incomplete(out, []string{PartLinks, PartAudit, PartArchive, PartRecord}, err)
	}
	if s.Links != nil {
		out.Done = append(out.Done, PartLinks)
	}
	streams, err := s.Store.AuditStreams(ctx, b.ID)
	if err != nil {
		return s.incomplete(out, []string{PartAudit, PartArchive, PartRecord}, err)
	}
	found, about, err := s.Audit.NamesIn(ctx, append(streams, audit.LegacyStream(b.ID)), member, rec.Cut)
	if err != nil {
		return s.incomplete(out, []string{PartAudit, PartArchive, PartRecord}, err)
	}
	names = append(names, found...)
	slices.Sort(names)
	r := redisstore.Redaction{Board: b.ID, Member: member, Pseudonym: rec.Pseudonym, Names: slices.Compact(names), Cut: rec.Cut}
	if err := s.redactStreams(ctx, streams, about, r); err != nil {
		return s.incomplete(out, []string{PartAudit, PartArchive, PartRecord}, err)
	}
	out.Done = append(out.Done, PartAudit)
	if archErr != nil {
		return s.incomplete(out, []string{PartArchive, PartRecord}, archErr)
	}
	if s.Archiver != nil {
		if _, err := s.Archiver.EraseMember(ctx, b, r); err != nil {
			return s.incomplete(out, []string{PartArchive, PartRecord}, err)
		}
		out.Done = append(out.Done, PartArchive)
	}
	// Again: a personal link an owner made for the id while the parts above
	// ran would otherwise outlive the erasure.
	if err := s.revokeLinks(ctx, b.ID, member); err != nil {
		return s.incomplete(out, []string{PartRecord}, err)
	}
	if err := s.Store.FinishErasure(ctx, b.ID, member, rec); err != nil {
		return s.incomplete(out, []string{PartRecord}, err)
	}
	out.Done = append(out.Done, PartRecord)
	out.Status = board.ErasedNow
	if s.Log != nil {
		s.Log.Info("member erased", "board", b.ID, "pseudonym", rec.Pseudonym, "mode", string(rec.Mode), "done", strings.Join(out.Done, ","))
	}
	return out, nil
}

// revokeLinks revokes the member's personal links of the board: they name
// it (and its display name), and would open its page under the id.
func (s *Service) revokeLinks(ctx context.Context, boardID, member string) error {
	if s.Links == nil {
		return nil
	}
	links, err := s.Links.ListPersonal(ctx, boardID)
	if err != nil {
		return err
	}
	for _, l := range links {
		if l.Member != member {
			continue
		}
		if _, err := s.Links.Revoke(ctx, boardID, l.ID); err != nil && !errors.Is(err, access.ErrNotFound) {
			return err
		}
	}
	return nil
}

// redactStreams rewrites the board's audit streams that hold an entry the
// redaction changes (about is those known to), and the legacy ones.
func (s *Service) redactStreams(ctx context.Context, streams []string, about map[string]bool, r redisstore.Redaction) error {
	for _, k := range streams {
		hit := about[k]
		if !hit {
			var err error
			if hit, err = s.Audit.Touches(ctx, k, r); err != nil {
				return err
			}
		}
		if hit {
			if _, err := s.Store.RedactStream(ctx, k, r); err != nil {
				return err
			}
		}
	}
	_, err := s.Audit.RedactLegacy(ctx, s.Store, r)
	return err
}

// archiveTraces reads the names the archive knows the member by, and
// whether it holds anything of it.
func (s *Service) archiveTraces(ctx context.Context, b *board.Board, member string) ([]string, bool, error) {
	if s.Archiver == nil {
		return nil, false, nil
	}
	return s.Archiver.DB.MemberTraces(ctx, b.ID, member)
}

// traces says whether the audit log (in Redis) or the archive still holds
// something of a member whose Redis structures hold nothing: an entry
// about it. Other members' entries whose reasons merely name it do not
// count: an id the board never held is refused, so that an erasure is no
// way to take a word out of every reason of the log.
func (s *Service) traces(ctx context.Context, boardID, member string, archived bool) (bool, error) {
	if archived {
		return true, nil
	}
	streams, err := s.Store.AuditStreams(ctx, boardID)
	if err != nil {
		return false, err
	}
	_, about, err := s.Audit.NamesIn(ctx, append(streams, audit.LegacyStream(boardID)), member, audit.LastID)
	return len(about) > 0, err
}

// incomplete is the answer of an erasure that failed before parts.
func (s *Service) incomplete(out board.Erased, pending []string, err error) (board.Erased, error) {
	out.Status, out.Pending = board.ErasedIncomplete, pending
	if s.Log != nil {
		s.Log.Error("erasure incomplete: run it again to finish", "board", out.Board, "pseudonym", out.Pseudonym, "done", strings.Join(out.Done, ","),
			"pending", strings.Join(pending, ","), "error", err)
	}
	return out, fmt.Errorf("%w: %s done, %s left: %w", ErrIncomplete, orNone(out.Done), strings.Join(pending, ", "), err)
}

func orNone(parts []string) string {
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
