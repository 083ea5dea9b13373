package redisstore

// Freeze and reveal. An admin freezes a board, now or at a set time: from
// then on every public read (pages, the widget, the API, exports, live
// views) shows the standings as they stood at the freeze, while writes go on
// to the live keys and admins read those (LiveStandings). Unfreezing shows
// the live standings to everyone at once: the reveal.
//
// The freeze lives in the definition (freeze_at, which bumps its version, so
// every replica's writers and the live hub learn of it) and in a marker hash
// in the board's slot (freezeKey) that names, for each period current at the
// freeze, its live keys and the keys of its frozen copy. The copy is taken
// once, atomically, by the first of: the freeze script itself (a freeze
// "now"), the submit script of the first write at or after the freeze time
// (before it writes: no write made after the freeze reaches the copy), the
// first public read after it, or the scheduler every replica runs
// (RunFreezes). Each copy is COPY of the sorted set and its helper keys
// (entries, tie groups and their counts), so ranks, ties, dense ranks,
// around-me and search read the copy exactly as the live set.
//
// The same step copies the recent changes (a short list). Display names
// are not copied (the names hash is as big as the board): once the copy is
// taken, every script that changes a member's name (a submission's name or
// first sight, a rename, a removal) first saves the name it had then, once
// per member and freeze (frozen_name_keep in lua/lib/freeze.lua). The public's
// reads of a frozen board read the saved names first (namesOf): names,
// search and who exists (a member first seen after the freeze has no name
// and no score) stay as they were at the freeze.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"podium/board"
)

// freezeLinger is how long a lifted freeze's copies stay readable: a replica
// whose cached definition (DefaultDefinitionTTL) still says frozen reads
// them rather than an empty board.
const freezeLinger = time.Minute

type liveKey struct{}

// LiveStandings marks ctx as an admin's: reads with it show a frozen board's
// live standings. Every other read shows what the public sees.
func LiveStandings(ctx context.Context) context.Context {
	return context.WithValue(ctx, liveKey{}, true)
}

func isLive(ctx context.Context) bool { v, _ := ctx.Value(liveKey{}).(bool); return v }

// ReadsLive tells whether ctx is marked by LiveStandings: the read cache
// (live.Cache) keeps only what the public sees, and leaves such reads to
// the store.
func ReadsLive(ctx context.Context) bool { return isLive(ctx) }

func freezeTime(v any) time.Time {
	s, _ := v.(string)
	us, err := strconv.ParseInt(s, 10, 64)
	if err != nil || s == "" {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// freezes is what a Store knows of freezes: which it has seen taken (so a
// public read does not ask Redis again), and which are due (the scheduler's).
type freezes struct {
	mu      sync.Mutex
	taken   map[string]int64     // board id -> freeze time (µs) whose copy exists
	due     map[string]time.Time // board id -> a freeze not yet seen taken
	reveals map[string]time.Time // board id -> when its freeze lifts on its own
}

func (f *freezes) isTaken(id string, at int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.taken[id] == at
}

func (f *freezes) setTaken(id string, at int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken == nil {
		f.taken = map[string]int64{}
	}
	f.taken[id] = at
	delete(f.due, id)
}

func (f *freezes) setDue(id string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.due == nil {
		f.due = map[string]time.Time{}
	}
	if at.IsZero() || f.taken[id] == at.UnixMicro() {
		delete(f.due, id)
		return
	}
	f.due[id] = at
}

// takeDue removes and returns the freezes due at now.
func (f *freezes) takeDue(now time.Time) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for id, at := range f.due {
		if !now.Before(at) {
			out = append(out, id)
			delete(f.due, id)
		}
	}
	return out
}

// Freeze freezes a board's public standings at at (zero: now). A time in the
// past is refused (beyond a few seconds of clock skew, which mean now); a
// freeze still to come is replaced; a board frozen already is ErrFrozen.
// The current period of each enabled kind at at is what the public sees
// afterwards; periods that start later show empty until the reveal.
func (s freezer) Freeze(ctx context.Context, id string, at time.Time) (board.Board, error) {
	b, err := s.readBoard(ctx, id)
	if err != nil {
		return board.Board{}, err
	}
	now := s.now()
	switch {
	case at.IsZero():
		at = now
	case at.Before(now.Add(-freezeSkew)):
		return board.Board{}, board.NewFieldError(board.ErrInvalidInput, "at", "is in the past; leave it out to freeze now")
	case at.Year() > board.MaxYear:
		return board.Board{}, board.NewFieldError(board.ErrInvalidInput, "at", "must be before the year %d", board.MaxYear+1)
	case at.Before(now):
		at = now
	}
	at = at.Truncate(time.Microsecond)
	var copies []string
	for _, k := range b.Periods {
		p := b.Current(k, at)
		copies = append(copies, ZSetKey(b.ID, p), FrozenKey(b.ID, p))
	}
	reply, err := freezeCall(id, "freeze", now).arg("at", at.UnixMicro()).arg("copies", strings.Join(copies, " ")).run(ctx, s.rdb).Result()
	if err != nil {
		return board.Board{}, fmt.Errorf("board: freeze %q: %w", id, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return board.Board{}, fmt.Errorf("board: freeze %q: %w", id, err)
	}
	switch st {
	case "nf":
		return board.Board{}, fmt.Errorf("board %q: %w", id, board.ErrNotFound)
	case "frozen":
		since := freezeTime(rest[0])
		return board.Board{}, fmt.Errorf("board %q has been frozen since %s; unfreeze it first: %w", id, since.Format(time.RFC3339), board.ErrFrozen)
	}
	if took, _ := rest[1].(string); took == "took" {
		s.frozen.setTaken(id, at.UnixMicro())
	} else {
		s.frozen.setDue(id, at)
	}
	s.wrote(ctx, defKey(id), freezeKey(id))
	return s.afterFreeze(ctx, id)
}

// afterFreeze reads the definition a freeze or unfreeze wrote, and writes
// the period schedule for its new version (FCALL podium_submit checks it).
func (s freezer) afterFreeze(ctx context.Context, id string) (board.Board, error) {
	b, err := s.readBoard(ctx, id)
	if err != nil {
		return board.Board{}, err
	}
	return b, s.writeSchedule(ctx, &b)
}

// freezeSkew is how far in the past a freeze time may be and still mean now.
const freezeSkew = 5 * time.Second

// Unfreeze lifts a board's freeze (or cancels one still to come): everyone
// sees the live standings again, and open pages move their rows there.
func (s freezer) Unfreeze(ctx context.Context, id string) (board.Board, error) {
	return s.unfreezeAt(ctx, id, time.Time{})
}

// unfreezeAt is Unfreeze; with a reveal time, only while the board's
// definition still reveals at that time (ErrNotFrozen otherwise).
func (s freezer) unfreezeAt(ctx context.Context, id string, reveal time.Time) (board.Board, error) {
	expect := ""
	if !reveal.IsZero() {
		expect = strconv.FormatInt(reveal.UnixMicro(), 10)
	}
	reply, err := freezeCall(id, "unfreeze", s.now()).arg("linger", freezeLinger.Milliseconds()).arg("reveal", expect).run(ctx, s.rdb).Result()
	if err != nil {
		return board.Board{}, fmt.Errorf("board: unfreeze %q: %w", id, err)
	}
	switch st, _, err := status(reply); {
	case err != nil:
		return board.Board{}, fmt.Errorf("board: unfreeze %q: %w", id, err)
	case st == "nf":
		return board.Board{}, fmt.Errorf("board %q: %w", id, board.ErrNotFound)
	case st == "none":
		return board.Board{}, fmt.Errorf("board %q is not frozen: %w", id, board.ErrNotFrozen)
	}
	s.frozen.setDue(id, time.Time{})
	s.frozen.setReveal(id, time.Time{})
	s.wrote(ctx, defKey(id), freezeKey(id))
	return s.afterFreeze(ctx, id)
}

// freezeCall is freeze.lua's call in mode at now, for board id; the mode's
// own arguments follow.
func freezeCall(id, mode string, now time.Time) *luaCall {
	return scripts.freeze.call(3, 4).key("def", defKey(id)).key("gen", genKey(id)).key("freeze", freezeKey(id)).
		arg("mode", mode).arg("now", now.UnixMicro()).in(mode)
}

// takeFreeze takes a board's freeze if its time has come (freeze.lua):
// its state ("none", "pending", "taken" or "took") and time.
func (s freezer) takeFreeze(ctx context.Context, id string) (string, int64, error) {
	reply, err := freezeCall(id, "take", s.now()).run(ctx, s.rdb).Result()
	if err != nil {
		return "", 0, fmt.Errorf("board: take the freeze of %q: %w", id, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return "", 0, fmt.Errorf("board: take the freeze of %q: %w", id, err)
	}
	var at int64
	if len(rest) > 0 {
		at, _ = strconv.ParseInt(fmt.Sprint(rest[0]), 10, 64)
	}
	switch st {
	case "took":
		s.wrote(ctx, freezeKey(id))
		fallthrough
	case "taken":
		s.frozen.setTaken(id, at)
	}
	return st, at, nil
}

// publicFreeze is the time of b's freeze when ctx's reads show its copy
// (the public's, once the freeze's time has come), taking the copy first
// if this process has not seen it taken; zero when they read live keys.
func (s freezer) publicFreeze(ctx context.Context, b *board.Board) (time.Time, error) {
	since, ok := b.FrozenSince(s.now())
	if !ok || isLive(ctx) {
		return time.Time{}, nil
	}
	if !s.frozen.isTaken(b.ID, since.UnixMicro()) {
		st, _, err := s.takeFreeze(ctx, b.ID)
		if err != nil {
			return time.Time{}, err
		}
		if st != "took" && st != "taken" {
			return time.Time{}, nil // lifted or moved since the definition was read
		}
	}
	return since, nil
}

// source is the one place that picks the keys a read of period p shows:
// the live sorted set, or, for the public of a frozen board, its copy at
// the freeze. frozen is the freeze's time when the copy is read.
func (s freezer) source(ctx context.Context, b *board.Board, p board.Period) (z string, frozen time.Time, err error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return "", time.Time{}, err
	}
	z, frozen = periodSource(b, p, since)
	return z, frozen, nil
}

// periodSource picks period p's keys for a reader who sees the freeze at
// since (zero: live). A period that closed before the freeze shows as it
// is; one that started after it shows empty (its copy does not exist: it
// had no scores then).
func periodSource(b *board.Board, p board.Period, since time.Time) (string, time.Time) {
	if since.IsZero() || p.Ended(since) {
		return ZSetKey(b.ID, p), time.Time{}
	}
	return FrozenKey(b.ID, p), since
}

// namesOf is the names key a reader who sees the freeze at since (zero:
// live) reads: the board's names, or its names at the freeze (the saved
// ones first, see the lua's names_get), whatever the period.
func namesOf(id string, since time.Time) string {
	if since.IsZero() {
		return namesKey(id)
	}
	return frozenNamesKey(id)
}

// nameIndexOf is namesOf's name index (search.lua walks both at a freeze).
func nameIndexOf(id string, since time.Time) string {
	if since.IsZero() {
		return nameIndexKey(id)
	}
	return frozenNameIndexKey(id)
}

// RunFreezes takes every replica's share of freezes at their time, so the
// public copy exists (and open pages say so) even when no write or read
// comes to take it; a writer the app does not see (a plain ZINCRBY) is the
// one case that needs it. It lists the boards every refresh, keeps the
// freezes still to come, and takes each once its time comes (checked every
// second). Each take is idempotent: replicas may race. report gets errors.
func (s freezer) RunFreezes(ctx context.Context, refresh time.Duration, report func(error), revealed func(board.Board)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var listed time.Time
	for {
		if time.Since(listed) >= refresh {
			if bs, err := s.Boards(ctx); err != nil {
				report(err)
			} else {
				listed = time.Now()
				for i := range bs {
					s.frozen.setDue(bs[i].ID, bs[i].FreezeAt)
					s.frozen.setReveal(bs[i].ID, bs[i].RevealAt)
				}
			}
		}
		for _, id := range s.frozen.takeDue(s.now()) {
			if _, _, err := s.takeFreeze(ctx, id); err != nil && ctx.Err() == nil {
				report(err)
			}
		}
		for _, id := range s.frozen.takeReveals(s.now()) {
			s.revealDue(ctx, id, report, revealed)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PublicSnapshot is Snapshot of what the public sees of a period: its copy
// at the freeze while the board is frozen (Frozen is then set, and the
// archive is not the place to look for it). Exports read it.
func (s freezer) PublicSnapshot(ctx context.Context, b *board.Board, p board.Period, ttl time.Duration) (*Snapshot, error) {
	since, err := s.publicFreeze(ctx, b)
	if err != nil {
		return nil, err
	}
	z, frozen := periodSource(b, p, since)
	sn, err := s.snapshotOf(ctx, b, p, z, ttl, false, "")
	if err != nil {
		return nil, err
	}
	sn.Frozen, sn.names = frozen, namesOf(b.ID, since)
	return sn, nil
}
