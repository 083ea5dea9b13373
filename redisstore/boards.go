package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// CreateBoard validates and stores a new board; ErrExists if the id is taken.
func (s catalog) CreateBoard(ctx context.Context, b board.Board) (board.Board, error) {
	b.Normalize()
	if err := errors.Join(b.Validate(), b.CheckNew()); err != nil {
		return board.Board{}, err
	}
	now := s.now().UTC()
	b.Created, b.Updated = now, now
	reply, err := putdefCall(&b, "create").run(ctx, s.rdb).Result()
	if err != nil {
		return board.Board{}, fmt.Errorf("board: create %q: %w", b.ID, err)
	}
	st, rest, err := status(reply)
	if err != nil || st != "ok" {
		if st == "exists" {
			return board.Board{}, fmt.Errorf("board: create %q: %w", b.ID, board.ErrExists)
		}
		return board.Board{}, fmt.Errorf("board: create %q: %v %w", b.ID, st, err)
	}
	b.Version = int64(toInt(rest[0]))
	s.defs.put(b, time.Now())
	if err := s.writeSchedule(ctx, &b); err != nil {
		return board.Board{}, err
	}
	// The index of boards lives outside the board's hash slot, so it is a
	// separate write; Boards skips ids whose definition is gone. The set of
	// audited boards keeps the id after a delete, for the log's views.
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, boardsKey, b.ID)
		p.SAdd(ctx, AuditedKey, b.ID)
		return nil
	}); err != nil {
		return board.Board{}, fmt.Errorf("board: index %q: %w", b.ID, err)
	}
	return b, nil
}

// UpdateBoard replaces a board's definition. Order, tie-break and extra
// fields are fixed at creation (ErrImmutable); periods, title, format, zone,
// rank style and cap may change.
func (s catalog) UpdateBoard(ctx context.Context, b board.Board) (board.Board, error) {
	b.Normalize()
	old, err := s.readBoard(ctx, b.ID) // fresh: the immutable options are checked against it
	if err != nil {
		return board.Board{}, err
	}
	verr := errors.Join(b.Validate(), b.CheckNew())
	if ierr := board.CheckImmutable(&old, &b); ierr != nil {
		verr = errors.Join(verr, ierr)
	}
	if ferr := board.CheckFrozen(&old, &b); ferr != nil {
		verr = errors.Join(verr, ferr)
	}
	if verr != nil {
		return board.Board{}, verr
	}
	if old.LegacyUnits {
		return board.Board{}, fmt.Errorf("board: update %q: its scores are being upgraded to exact units; retry in a moment: %w", b.ID, board.ErrBusy)
	}
	b.Created, b.Updated = old.Created, s.now().UTC()
	b.FreezeAt, b.RevealAt = old.FreezeAt, old.RevealAt // not fields of the form: putdef leaves them as they are
	reply, err := putdefCall(&b, "update").run(ctx, s.rdb).Result()
	if err != nil {
		return board.Board{}, fmt.Errorf("board: update %q: %w", b.ID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return board.Board{}, fmt.Errorf("board: update %q: %w", b.ID, err)
	}
	if st == "nf" {
		return board.Board{}, fmt.Errorf("board: update %q: %w", b.ID, board.ErrNotFound)
	}
	b.Version = int64(toInt(rest[0]))
	b.FreezeAt = freezeTime(rest[1]) // as stored by now, should a freeze have come between
	s.defs.put(b, time.Now())
	s.wrote(ctx, defKey(b.ID)) // open views follow the new definition
	if err := s.writeSchedule(ctx, &b); err != nil {
		return board.Board{}, err
	}
	if err := s.dropWindows(context.WithoutCancel(ctx), &old, &b); err != nil {
		return board.Board{}, err
	}
	if old.Teams != b.Teams || (b.Teams != board.TeamsOff && (old.RankStyle == board.Dense) != (b.RankStyle == board.Dense)) {
		// Detached, like the dense rebuild below: a standing half rebuilt
		// would stay wrong.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := s.rebuildTeams(tctx, &b); err != nil {
			return board.Board{}, err
		}
	}
	if err := s.segmentStore.afterUpdate(context.WithoutCancel(ctx), &old, &b); err != nil {
		return board.Board{}, err
	}
	if (old.RankStyle == board.Dense) != (b.RankStyle == board.Dense) {
		// Detached: a rebuild left half done by a client hanging up would
		// stay so (reads repair a dense period whose index lacks a group,
		// but only when they meet one).
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := s.restyle(rctx, &b); err != nil {
			return board.Board{}, err
		}
	}
	return b, nil
}

// restyle builds the tie-group index of every period of a board that turned
// dense (writes keep it only on dense boards: see lua/lib/encoding.lua), or
// drops it from one that no longer is. Each period is one script, O(N) for a
// dense board; writes made meanwhile, already under the new version, keep
// the index the rebuild then replaces whole.
func (s catalog) restyle(ctx context.Context, b *board.Board) error {
	zsets, err := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
	if err != nil {
		return fmt.Errorf("board: restyle %q: %w", b.ID, err)
	}
	for _, z := range zsets {
		if b.RankStyle == board.Dense {
			err = reindexCall(b, z).run(ctx, s.rdb).Err()
		} else {
			err = s.rdb.Del(ctx, distinctKey(z), groupCountKey(z)).Err()
		}
		if err != nil {
			return fmt.Errorf("board: restyle %s of %q: %w", z, b.ID, err)
		}
	}
	s.wrote(ctx, zsets...) // every rank shown may have changed
	return nil
}

// Boards lists every board, ordered by title.
func (s catalog) Boards(ctx context.Context) ([]board.Board, error) {
	ids, err := s.rdb.SMembers(ctx, boardsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("board: list: %w", err)
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HGetAll(ctx, defKey(id))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("board: list: %w", err)
	}
	out := make([]board.Board, 0, len(ids))
	for _, c := range cmds {
		if len(c.Val()) == 0 {
			continue // deleted between the two reads, or a half-finished delete
		}
		b, err := parseDef(c.Val())
		if err != nil {
			return nil, fmt.Errorf("board: list: %w", err)
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b board.Board) int {
		if c := strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// DeleteBoard removes a board and every score, name and change it holds,
// and its webhooks (their secrets, queue and logs) in the same step.
func (s catalog) DeleteBoard(ctx context.Context, id string) error {
	zsets, err := s.rdb.SMembers(ctx, periodsKey(id)).Result()
	if err != nil {
		return fmt.Errorf("board: delete %q: %w", id, err)
	}
	reply, err := scripts.dropboard.call(10, 0).
		key("def", defKey(id)).key("names", namesKey(id)).key("names_lc", namesLowerKey(id)).key("names_idx", nameIndexKey(id)).
		key("recent", recentKey(id)).key("periods", periodsKey(id)).key("sched", schedKey(id)).key("archive", ArchiveState(id)).
		key("freeze", freezeKey(id)).key("hooks", HooksKey(id)).
		run(ctx, s.rdb).Result()
	if err != nil {
		return fmt.Errorf("board: delete %q: %w", id, err)
	}
	s.defs.drop(id)
	if st, _, _ := status(reply); st == "nf" {
		return fmt.Errorf("board %q: %w", id, board.ErrNotFound)
	}
	if err := s.rdb.SRem(ctx, boardsKey, id).Err(); err != nil {
		return fmt.Errorf("board: unindex %q: %w", id, err)
	}
	s.wrote(ctx, zsets...)
	return nil
}

// putdefCall writes definition b (mode "create" or "update").
func putdefCall(b *board.Board, mode string) *luaCall {
	fields := defFields(b)
	return scripts.putdef.call(2, 1+len(fields)).key("def", defKey(b.ID)).key("gen", genKey(b.ID)).arg("mode", mode).args("field", fields...)
}

// reindexCall rebuilds the tie-group index of period zset z of board b.
func reindexCall(b *board.Board, z string) *luaCall {
	return scripts.reindex.call(3, 4).key("zset", z).key("distinct", distinctKey(z)).key("counts", groupCountKey(z)).encoding(b)
}

// leagueField is a league as the definition hash holds it: its JSON (the
// scripts read the kind and the cohort size from it), "" none.
func leagueField(l *board.League) string {
	if l == nil {
		return ""
	}
	j, _ := json.Marshal(l)
	return string(j)
}

// defFields writes a definition as hash field/value pairs, readable in redis-cli.
func defFields(b *board.Board) []any {
	periods := make([]string, len(b.Periods))
	for i, k := range b.Periods {
		periods[i] = string(k)
	}
	fields := make([]string, len(b.Fields))
	for i, f := range b.Fields {
		dir := "asc"
		if f.Desc {
			dir = "desc"
		}
		fields[i] = f.Name + ":" + dir
	}
	return []any{
		"id", b.ID,
		"title", b.Title,
		"format", string(b.Format.Type),
		"decimals", strconv.Itoa(b.Format.Decimals),
		"prefix", b.Format.Prefix,
		"suffix", b.Format.Suffix,
		"order", string(b.Order),
		"periods", strings.Join(periods, ","),
		"default_period", string(b.DefaultPeriod),
		"time_zone", b.TimeZone,
		"schedule", b.Schedule,
		"schedule_name", b.ScheduleName,
		"tie_break", string(b.TieBreak),
		"rank_style", string(b.RankStyle),
		"fields", strings.Join(fields, ","),
		"cap", strconv.Itoa(b.Cap),
		"opens_at", microsOrEmpty(b.OpensAt),
		"closes_at", microsOrEmpty(b.ClosesAt),
		"rules", b.Rules.Encode(), // fair play (board/rules.go), read by lua/lib/rules.lua
		"sessions", sessionsField(b.Sessions), // score sessions (board/session.go): "<min s> <max s>"
		"retention", strconv.Itoa(b.Retention),
		"window", string(b.Window),
		"teams", string(b.Teams),
		"segments", strings.Join(b.Segments, ","),
		"league", leagueField(b.League),
		"visibility", string(b.Visibility),
		"names", string(b.Names),
		"top_only", strconv.Itoa(b.TopOnly),
		"units", "1", // scores are whole numbers of Format.Unit (board/score.go)
		"created", b.Created.Format(time.RFC3339Nano),
		"updated", b.Updated.Format(time.RFC3339Nano),
	}
}

func parseDef(m map[string]string) (board.Board, error) {
	b := board.Board{
		ID:            m["id"],
		Title:         m["title"],
		Format:        board.Format{Type: board.FormatType(m["format"]), Prefix: m["prefix"], Suffix: m["suffix"]},
		Order:         board.Order(m["order"]),
		DefaultPeriod: board.Kind(m["default_period"]),
		TimeZone:      m["time_zone"],
		Schedule:      m["schedule"],
		ScheduleName:  m["schedule_name"],
		TieBreak:      board.TieBreak(m["tie_break"]),
		RankStyle:     board.RankStyle(m["rank_style"]),
		Window:        board.WindowMode(m["window"]),
		Teams:         board.TeamMode(m["teams"]),
	}
	if b.Window == "" {
		b.Window = board.WindowSum // definitions from before rolling windows
	}
	switch v := board.Visibility(m["visibility"]); v {
	case "":
		b.Visibility = board.Public // definitions from before visibility
	case board.Public, board.Unlisted:
		b.Visibility = v
	default:
		b.Visibility = board.Private // a value this version does not know: closed, not open
	}
	switch n := board.NameMode(m["names"]); n {
	case "", board.FullNames:
		b.Names = board.FullNames // definitions from before privacy modes
	case board.Initials:
		b.Names = n
	default:
		b.Names = board.Pseudonyms // a value this version does not know: hidden, not shown
	}
	if m["segments"] != "" {
		b.Segments = strings.Split(m["segments"], ",")
	}
	if m["league"] != "" {
		b.League = new(board.League)
		if err := json.Unmarshal([]byte(m["league"]), b.League); err != nil {
			return board.Board{}, fmt.Errorf("stored league of %q is invalid: %w", b.ID, err)
		}
	}
	rules, err := board.DecodeRules(m["rules"])
	if err != nil {
		return board.Board{}, fmt.Errorf("stored rules of %q are invalid: %w", b.ID, err)
	}
	b.Rules = rules
	var ss board.Sessions
	if _, err := fmt.Sscanf(m["sessions"], "%d %d", &ss.MinSeconds, &ss.MaxSeconds); err == nil {
		b.Sessions = &ss
	}
	b.TopOnly, _ = strconv.Atoi(m["top_only"])
	b.Format.Decimals, _ = strconv.Atoi(m["decimals"])
	b.Cap, _ = strconv.Atoi(m["cap"])
	b.Retention = board.DefaultRetention // definitions from before the option
	if r, err := strconv.Atoi(m["retention"]); err == nil {
		b.Retention = r
	}
	for _, p := range strings.Split(m["periods"], ",") {
		if p != "" {
			b.Periods = append(b.Periods, board.Kind(p))
		}
	}
	for _, f := range strings.Split(m["fields"], ",") {
		if name, dir, ok := strings.Cut(f, ":"); ok {
			b.Fields = append(b.Fields, board.Field{Name: name, Desc: dir == "desc"})
		}
	}
	b.Created, _ = time.Parse(time.RFC3339Nano, m["created"])
	b.Updated, _ = time.Parse(time.RFC3339Nano, m["updated"])
	b.Version, _ = strconv.ParseInt(m["version"], 10, 64) // 0 for definitions written before versions
	b.FreezeAt, b.RevealAt = microsOrZero(m["freeze_at"]), microsOrZero(m["reveal_at"])
	b.OpensAt, b.ClosesAt = microsOrZero(m["opens_at"]), microsOrZero(m["closes_at"])
	b.LegacyUnits = b.Format.Type == board.Decimal && m["units"] != "1"
	if err := b.Validate(); err != nil {
		return board.Board{}, fmt.Errorf("stored definition of %q is invalid: %w", b.ID, err)
	}
	return b, nil
}

// microsOrZero reads an instant a definition keeps in Unix microseconds;
// "" (none) or anything else is the zero time.
func microsOrZero(v string) time.Time {
	us, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// microsOrEmpty is t in Unix microseconds as a definition keeps it, "" for
// the zero time.
func microsOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMicro(), 10)
}

// sessionsField is a board's run times as its definition keeps them.
func sessionsField(s *board.Sessions) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%d %d", s.MinSeconds, s.MaxSeconds)
}
