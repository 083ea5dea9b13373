// Package memberdata is what Podium keeps about one member of a board, as
// the person it stands for may ask for it: a copy of all of it as one JSON
// document (Data), and its erasure from every store (Erase). The parts live
// in their stores (redisstore, archive, audit); this package runs them in
// their order.
package memberdata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"podium/access"
	"podium/archive"
	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// Limit bounds each list of a member's data (its standings in Redis, its
// archived rows, its audit entries): a copy holds at most three times
// Limit rows (a few megabytes of JSON), whatever the history, and says
// which lists it cut (Data.Truncated).
const Limit = 10_000

// ErrNoMember: the board holds nothing of the member, anywhere.
var ErrNoMember = errors.New("no such member")

// Service reads and erases members' data.
type Service struct {
	Store    *redisstore.Store
	Audit    *audit.Log
	Archiver *archive.Archiver // nil: no archive
	// Links are the boards' personal links (access.Links), which name
	// their member: an erasure revokes the member's. nil: none.
	Links PersonalLinks
	Log   *slog.Logger
}

// PersonalLinks lists and revokes a board's personal links.
type PersonalLinks interface {
	ListPersonal(ctx context.Context, boardID string) ([]access.Link, error)
	Revoke(ctx context.Context, boardID, id string) (access.Link, error)
}

// Data is the copy of everything a board keeps about one member.
type Data struct {
	Board  string `json:"board"`
	Member string `json:"member"`
	Name   string `json:"name,omitempty"` // its display name, if it has one besides its id
	Team   string `json:"team,omitempty"`
	// Friends are the members it calls friends on this board, if any.
	Friends []string `json:"friends,omitempty"`
	// Segments are its values of the board's attributes (country, class...).
	Segments  map[string]string `json:"segments,omitempty"`
	Generated time.Time         `json:"generated"`
	// Periods are its standings in every period Redis holds: the open ones
	// (all time, rolling windows, the current day, week...) and closed ones
	// not yet archived away, latest first.
	Periods []Standing `json:"periods"`
	// Archived are its rows of closed periods in the archive, latest first.
	Archived []Standing `json:"archived"`
	// League is, on a board that runs a league, the member's tier now and
	// what the close of each archived period of the league did to it.
	League *League `json:"league,omitempty"`
	// Race are its points in the periods' races (the top's scores over
	// time, redisstore/race.go), in Redis and in the archive, newest first.
	Race []RacePoint `json:"race,omitempty"`
	// Held are its scores waiting in the board's review queue for breaking
	// a fair-play rule (board/held.go), oldest first: at most board.MaxHeld.
	Held []Held `json:"held,omitempty"`
	// Audit are the changes the audit log records about it, newest first:
	// in Redis and in the archive.
	Audit []Change `json:"audit"`
	// Limit is the most rows each list holds; Truncated names the lists
	// that had more ("periods", "archived", "league", "race", "audit").
	Limit     int      `json:"limit"`
	Truncated []string `json:"truncated,omitempty"`
}

// Standing is the member's place in one period.
type Standing struct {
	Period string      `json:"period"` // "week:2026-W47", "all", "last7d"
	Title  string      `json:"title"`
	Start  *time.Time  `json:"start,omitempty"`
	End    *time.Time  `json:"end,omitempty"`
	Open   bool        `json:"open"`           // still running: the score may change
	Name   string      `json:"name,omitempty"` // archived rows: the name it had then
	Score  json.Number `json:"score"`          // in the board's unit, exact
	Rank   int         `json:"rank"`
	Of     int         `json:"of"` // members in the period
	// Segments are, in archived rows, the member's values of the board's
	// attributes when the period was copied.
	Segments map[string]string `json:"segments,omitempty"`
}

// RacePoint is a score the member reached while in a period's top.
type RacePoint struct {
	Period string      `json:"period"`
	At     time.Time   `json:"at"`
	Score  json.Number `json:"score"` // in the board's unit, exact
}

// League is a member's league: its tier now (in the league's next
// period), and its results, latest period first.
type League struct {
	Tier    string         `json:"tier"`
	Results []LeagueResult `json:"results"`
}

// LeagueResult is what the close of one period of the league did to the
// member: the tier it played in, its cohort (0: it did not play) and its
// rank there (0: no score), its move and the tier it went to.
type LeagueResult struct {
	Period string `json:"period"`
	Title  string `json:"title"`
	Tier   string `json:"tier"`
	Cohort int    `json:"cohort,omitempty"`
	Rank   int    `json:"rank,omitempty"`
	Move   string `json:"move"` // up, down or stay
	Next   string `json:"next"`
}

// Change is an audit entry about the member.
type Change struct {
	ID     string    `json:"id"`
	Time   time.Time `json:"time"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Period string    `json:"period,omitempty"`
	Before string    `json:"before,omitempty"`
	After  string    `json:"after,omitempty"`
	Reason string    `json:"reason,omitempty"`
}

// Held is a score of the member's held for review: what it would apply and
// the name it would set.
type Held struct {
	ID    int64       `json:"id"`
	Op    string      `json:"op"`
	Value json.Number `json:"value"` // exact, in the board's unit
	Name  string      `json:"name,omitempty"`
	Rule  string      `json:"rule"`
	Sent  time.Time   `json:"sent"`
}

// held fills d.Held with the member's writes in the board's review queue.
func (s *Service) held(ctx context.Context, b *board.Board, member string, d *Data) error {
	hs, err := s.Store.Held(ctx, b.ID)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if h.Member == member {
			d.Held = append(d.Held, Held{ID: h.ID, Op: string(h.Op), Value: json.Number(b.Format.Number(h.Value)), Name: h.Name, Rule: h.Rule, Sent: h.At})
		}
	}
	return nil
}

// Data reads what board b keeps about member; ErrNoMember (wrapping
// board.ErrNotFound) when it keeps nothing.
func (s *Service) Data(ctx context.Context, b *board.Board, member string) (Data, error) {
	if err := board.CheckMember(member); err != nil {
		return Data{}, err
	}
	now := s.Store.Now()
	out := Data{Board: b.ID, Member: member, Generated: now.UTC(), Limit: Limit, Periods: []Standing{}, Archived: []Standing{}, Audit: []Change{}}
	md, err := s.Store.MemberData(ctx, b, member, Limit)
	if err != nil {
		return Data{}, err
	}
	out.Name, out.Team, out.Friends, out.Segments = md.Name, md.Team, md.Friends, md.Segments
	for _, st := range md.Standings {
		out.Periods = append(out.Periods, standingOf(b, st.Period, now, "", st.Score, st.Rank, st.Total))
	}
	truncate(&out, "periods", md.More)
	if s.Archiver != nil {
		rows, more, err := s.Archiver.DB.MemberRows(ctx, b.ID, member, Limit)
		if err != nil {
			return Data{}, err
		}
		for _, r := range rows {
			p, err := periodOf(b, r.Period)
			if err != nil {
				continue
			}
			name := r.Name
			if name == member {
				name = "" // named by its id only
			}
			st := standingOf(b, p, now, name, r.Score, r.Rank, r.Members)
			st.Segments = r.Segments
			out.Archived = append(out.Archived, st)
		}
		truncate(&out, "archived", more)
	}
	if err := s.league(ctx, b, member, &out); err != nil {
		return Data{}, err
	}
	if err := s.race(ctx, b, member, &out); err != nil {
		return Data{}, err
	}
	if err := s.held(ctx, b, member, &out); err != nil {
		return Data{}, err
	}
	es, more, err := s.Audit.About(ctx, b.ID, member, Limit)
	if err != nil {
		return Data{}, err
	}
	for _, e := range es {
		out.Audit = append(out.Audit, Change{ID: e.ID, Time: e.Time.UTC(), Actor: e.Actor, Action: e.Action, Period: e.Period, Before: e.Before, After: e.After, Reason: e.Reason})
	}
	truncate(&out, "audit", more)
	if out.Name == "" && out.Team == "" && len(out.Segments) == 0 && out.League == nil && len(out.Periods)+len(out.Archived)+len(out.Audit)+len(out.Friends)+len(out.Race)+len(out.Held) == 0 {
		return Data{}, noMember(b.ID, member)
	}
	return out, nil
}

// league fills d.League on a board that runs a league, unless the league
// knows nothing of the member: still in the lowest tier, with no results.
func (s *Service) league(ctx context.Context, b *board.Board, member string, d *Data) error {
	l := b.League
	if l == nil {
		return nil
	}
	tier, err := s.Store.TierOf(redisstore.LiveStandings(ctx), b, member) // its own data: live, frozen or not
	if err != nil {
		return err
	}
	out := &League{Tier: l.TierName(tier), Results: []LeagueResult{}}
	if s.Archiver != nil {
		rs, more, err := s.Archiver.DB.MemberLeagueResults(ctx, b.ID, member, Limit)
		if err != nil {
			return err
		}
		for _, r := range rs {
			title := r.Period
			if p, err := periodOf(b, r.Period); err == nil {
				title = p.Title()
			}
			out.Results = append(out.Results, LeagueResult{Period: r.Period, Title: title, Tier: l.TierName(r.Tier), Cohort: r.Cohort, Rank: r.Rank,
				Move: r.Move.String(), Next: l.TierName(r.Next)})
		}
		truncate(d, "league", more)
	}
	if tier > 0 || len(out.Results) > 0 {
		d.League = out
	}
	return nil
}

func noMember(boardID, member string) error {
	return fmt.Errorf("board %q holds nothing of member %q (never there, or erased): %w", boardID, member, errors.Join(ErrNoMember, board.ErrNotFound))
}

func truncate(d *Data, list string, more bool) {
	if more {
		d.Truncated = append(d.Truncated, list)
	}
}

func standingOf(b *board.Board, p board.Period, now time.Time, name string, score float64, rank, of int) Standing {
	st := Standing{Period: p.String(), Title: p.Title(), Open: !p.Ended(now), Score: json.Number(b.Format.Number(score)), Rank: rank, Of: of}
	st.Name = name
	if p.Kind.Calendar() {
		start, end := p.Start.UTC(), p.End.UTC()
		st.Start, st.End = &start, &end
	}
	return st
}

// periodOf reads a period's label ("week:2026-W47", "all").
func periodOf(b *board.Board, label string) (board.Period, error) {
	kind, key, _ := strings.Cut(label, ":")
	k, err := board.ParseKind(kind)
	if err != nil {
		return board.Period{}, err
	}
	return b.PeriodOf(k, key)
}

// Filename is the download's name: the board, the member (characters a
// file name may not hold replaced), and the day.
func Filename(boardID, member string, at time.Time) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, member)
	return "podium-" + boardID + "-" + strings.Trim(safe, ".") + "-" + at.UTC().Format("2006-01-02") + ".json"
}
