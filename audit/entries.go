package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// entriesOf reads one stream entry as the rows it holds: one, or one per
// line of its items for the entries the board's scripts write (action
// "scores", or "member.remove" with a line per period), whose values are raw
// units shown here in the board's format of the time.
func entriesOf(m redis.XMessage) []Entry {
	s := func(k string) string { v, _ := m.Values[k].(string); return v }
	ms, _ := strconv.ParseInt(s("t"), 10, 64)
	e := Entry{
		Time: time.UnixMilli(ms), Actor: s("actor"), Action: s("action"), Board: s("board"),
		Member: s("member"), Period: s("period"), Before: s("before"), After: s("after"), Reason: s("reason"),
	}
	if s("items") == "" {
		return []Entry{e}
	}
	dec, _ := strconv.Atoi(s("dec"))
	fm := board.Format{Type: board.FormatType(s("fmt")), Decimals: dec, Prefix: s("pre"), Suffix: s("suf")}
	lines := strings.Split(s("items"), "\n")
	out := make([]Entry, 0, len(lines))
	for _, line := range lines {
		// member, op, value, score and rank before, score and rank after,
		// name, the period when it is not the entry's, then (scores written
		// since the log keeps every period) label, score and rank before and
		// after of each other period
		f := strings.Split(line, "\t")
		if len(f) < 7 {
			continue
		}
		x := e
		x.Member = f[0]
		x.Before, x.After = shown(fm, f[3], f[4]), shown(fm, f[5], f[6])
		if len(f) > 8 && f[8] != "" {
			x.Period = f[8]
		}
		if e.Action == "member.remove" {
			x.After = "(removed)"
			out = append(out, x)
			continue
		}
		x.Action = "score." + f[1]
		x.Periods = []PeriodChange{{Period: x.Period, Before: x.Before, After: x.After}}
		for p := f[min(len(f), 9):]; len(p) >= 5; p = p[5:] {
			x.Periods = append(x.Periods, PeriodChange{Period: p[0], Before: shown(fm, p[1], p[2]), After: shown(fm, p[3], p[4])})
		}
		v, _ := strconv.ParseFloat(f[2], 64)
		x.Reason = f[1] + " " + fm.Display(v)
		if len(f) > 7 && f[7] != "" && f[7] != f[0] {
			x.Reason += " as " + f[7]
		}
		if e.Reason != "" {
			x.Reason += ": " + e.Reason
		}
		out = append(out, x)
	}
	// Members a submission moved to a team (redisstore/team.go): member, the
	// team it left ('' none), the team it joined.
	for _, line := range strings.Split(s("teams"), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 {
			x := e
			x.Action, x.Member, x.Period, x.Before, x.After = "member.team", f[0], "", f[1], f[2]
			out = append(out, x)
		}
	}
	// And to segment values (redisstore/segment.go): member, attribute,
	// the value it left ('' none), the value it took, as member.segment
	// entries show them.
	for _, line := range strings.Split(s("segments"), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 4 {
			x := e
			x.Action, x.Member, x.Period, x.Before, x.After = "member.segment", f[0], "", f[1]+": "+f[2], f[1]+": "+f[3]
			out = append(out, x)
		}
	}
	return out
}

// shown is a standing as the log shows it: "1,250 (rank 3)", "1,250" when
// ranks were not asked for, or "(none)".
func shown(fm board.Format, score, rank string) string {
	if score == "" {
		return "(none)"
	}
	v, _ := strconv.ParseFloat(score, 64)
	if rank == "" || rank == "0" {
		return fm.Display(v)
	}
	return fm.Display(v) + " (rank " + rank + ")"
}

// Definition is a board definition as compact JSON (the API's form, without
// its timestamps), for the before and after of board changes.
func Definition(b *board.Board) string {
	j := board.SpecOf(b)
	j.Created, j.Updated = nil, nil
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(j)
	return string(bytes.TrimSpace(buf.Bytes()))
}

// RecordDone records the entry of a change that has been made. The change is
// done, so the caller's cancellation (a client hanging up) must not cancel
// its entry; a failure is logged loudly with every detail, for the record.
func (l *Log) RecordDone(ctx context.Context, e Entry, log *slog.Logger) {
	if err := l.Record(context.WithoutCancel(ctx), e); err != nil {
		log.Error("AUDIT ENTRY LOST", "action", e.Action, "actor", e.Actor, "board", e.Board, "member", e.Member,
			"period", e.Period, "before", e.Before, "after", e.After, "reason", e.Reason, "error", err)
	}
}
