package redisstore

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"podium/board"
)

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func TestBoardCRUD(t *testing.T) {
	f := newFixture(t)
	b := f.board(board.Board{Title: "Chess", Periods: []board.Kind{board.AllTime, board.Weekly, board.Daily}, TimeZone: "Europe/Paris"})
	if !slices.Equal(b.Periods, []board.Kind{board.Daily, board.Weekly, board.AllTime}) || b.DefaultPeriod != board.AllTime || b.TieBreak != board.Earliest || b.RankStyle != board.Competition {
		t.Fatalf("defaults not applied: %+v", b)
	}
	got, err := f.store.Board(f.ctx, b.ID)
	if err != nil || got.Title != "Chess" || got.TimeZone != "Europe/Paris" || got.Location().String() != "Europe/Paris" {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	if _, err := f.store.CreateBoard(f.ctx, board.Board{ID: b.ID, Title: "again"}); !errors.Is(err, board.ErrExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	got.Title, got.RankStyle, got.Periods = "Chess blitz", board.Dense, []board.Kind{board.Monthly, board.AllTime}
	if _, err := f.store.UpdateBoard(f.ctx, got); err != nil {
		t.Fatalf("update: %v", err)
	}
	again, _ := f.store.Board(f.ctx, b.ID)
	if again.Title != "Chess blitz" || again.RankStyle != board.Dense || !slices.Equal(again.Periods, []board.Kind{board.Monthly, board.AllTime}) {
		t.Fatalf("update not kept: %+v", again)
	}
	again.Order, again.TieBreak, again.RankStyle = board.LowerIsBetter, board.ByMember, board.Competition
	_, err = f.store.UpdateBoard(f.ctx, again)
	if !errors.Is(err, board.ErrImmutable) || len(board.FieldErrors(err)) != 2 {
		t.Fatalf("immutable fields changed: %v", err)
	}
	list, err := f.store.Boards(f.ctx)
	if err != nil || !slices.ContainsFunc(list, func(x board.Board) bool { return x.ID == b.ID }) {
		t.Fatalf("list: %v %v", list, err)
	}
	f.submit(b, "ann", 5, board.Incr)
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Board(f.ctx, b.ID); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("deleted board still read: %v", err)
	}
	// Only the generation counter stays, so a board made again with this id
	// never repeats a version, and the audit log, which outlives the board.
	left, _ := f.rdb.Keys(f.ctx, tagOf(b.ID)+"*").Result()
	slices.Sort(left)
	if want := []string{genKey(b.ID), AuditStream(b.ID), AuditActorStream(b.ID, tester.Actor), AuditActors(b.ID), AuditRows(b.ID)}; !slices.Equal(left, sorted(want)) {
		t.Fatalf("delete left keys %v, want %v", left, want)
	}
	if err := f.store.DeleteBoard(f.ctx, b.ID); !errors.Is(err, board.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestBoardValidationNamesTheField(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name  string
		board board.Board
		field string
	}{
		{"empty id", board.Board{Title: "x"}, "id"},
		{"id with braces", board.Board{ID: "a{b}", Title: "x"}, "id"},
		{"upper-case id", board.Board{ID: "Chess", Title: "x"}, "id"},
		{"no title", board.Board{ID: "x"}, "title"},
		{"bad zone", board.Board{ID: "x", Title: "x", TimeZone: "Mars/Olympus"}, "time_zone"},
		{"bad order", board.Board{ID: "x", Title: "x", Order: "sideways"}, "order"},
		{"bad period", board.Board{ID: "x", Title: "x", Periods: []board.Kind{"hour"}}, "periods"},
		{"default not enabled", board.Board{ID: "x", Title: "x", Periods: []board.Kind{board.Daily}, DefaultPeriod: board.Weekly}, "default_period"},
		{"bad tie-break", board.Board{ID: "x", Title: "x", TieBreak: "coin"}, "tie_break"},
		{"bad rank style", board.Board{ID: "x", Title: "x", RankStyle: "olympic"}, "rank_style"},
		{"too many fields", board.Board{ID: "x", Title: "x", Fields: []board.Field{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}}, "fields"},
		{"duplicate field", board.Board{ID: "x", Title: "x", Fields: []board.Field{{Name: "a"}, {Name: "a"}}}, "fields[1].name"},
		{"decimals out of range", board.Board{ID: "x", Title: "x", Format: board.Format{Type: board.Decimal, Decimals: 9}}, "format.decimals"},
		{"unknown format", board.Board{ID: "x", Title: "x", Format: board.Format{Type: "roman"}}, "format.type"},
		{"negative cap", board.Board{ID: "x", Title: "x", Cap: -1}, "cap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.store.CreateBoard(f.ctx, tc.board)
			if !errors.Is(err, board.ErrInvalidBoard) {
				t.Fatalf("got %v, want ErrInvalidBoard", err)
			}
			fes := board.FieldErrors(err)
			if !slices.ContainsFunc(fes, func(fe *board.FieldError) bool { return fe.Field == tc.field }) {
				t.Fatalf("errors %v do not name %s", err, tc.field)
			}
			if tc.board.ID != "" {
				if _, err := f.store.Board(f.ctx, tc.board.ID); !errors.Is(err, board.ErrNotFound) {
					t.Fatalf("invalid board was stored: %v", err)
				}
			}
		})
	}
}

func TestBoardParsePeriod(t *testing.T) {
	b := &board.Board{ID: "x", Title: "x", Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly, TimeZone: "America/New_York"}
	b.Normalize()
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC) // Sunday evening in New York
	p, err := b.ParsePeriod("", "", now)
	if err != nil || p.Key != "2026-W47" {
		t.Fatalf("default period: %+v %v", p, err)
	}
	if p, err = b.ParsePeriod("week", "2021-W01", now); err != nil || p.Start.Format(time.RFC3339) != "2021-01-04T00:00:00-05:00" {
		t.Fatalf("past week: %+v %v", p, err)
	}
	if _, err := b.ParsePeriod("day", "", now); !errors.Is(err, board.ErrPeriodDisabled) {
		t.Fatalf("disabled kind: %v", err)
	}
	if _, err := b.ParsePeriod("week", "2021-W99", now); !errors.Is(err, board.ErrInvalidPeriod) {
		t.Fatalf("bad key: %v", err)
	}
	if _, err := b.ParsePeriod("fortnight", "", now); !errors.Is(err, board.ErrInvalidPeriod) {
		t.Fatalf("bad kind: %v", err)
	}
}

func TestParseZSetKey(t *testing.T) {
	tests := []struct {
		key  string
		id   string
		kind board.Kind
		pk   string
		ok   bool
	}{
		{"lb:{chess}:all", "chess", board.AllTime, "", true},
		{"lb:{chess}:w:2026-W47", "chess", board.Weekly, "2026-W47", true},
		{"lb:{chess}:d:2026-11-22", "chess", board.Daily, "2026-11-22", true},
		{"lb:{chess}:w:2026-W47:e", "", "", "", false},
		{"lb:{chess}:def", "", "", "", false},
		{"lb:{chess}:names", "", "", "", false},
		{"lb:boards", "", "", "", false},
		{"other:{chess}:all", "", "", "", false},
	}
	for _, tc := range tests {
		id, k, pk, ok := ParseZSetKey(tc.key)
		if id != tc.id || k != tc.kind || pk != tc.pk || ok != tc.ok {
			t.Errorf("ParseZSetKey(%q) = %q %q %q %v", tc.key, id, k, pk, ok)
		}
	}
	if id, ok := ParseNamesKey(namesKey("chess")); !ok || id != "chess" {
		t.Errorf("ParseNamesKey(%q) = %q %v", namesKey("chess"), id, ok)
	}
	for _, k := range []string{"lb:{chess}:names:idx", "lb:{chess}:all", "lb:boards", "lb:{}:names"} {
		if _, ok := ParseNamesKey(k); ok {
			t.Errorf("ParseNamesKey(%q) accepted", k)
		}
	}
	p := board.PeriodAt(board.Monthly, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.UTC)
	if id, k, pk, ok := ParseZSetKey(ZSetKey("a-b", p)); id != "a-b" || k != board.Monthly || pk != "2026-11" || !ok {
		t.Errorf("round trip of %s", ZSetKey("a-b", p))
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }
