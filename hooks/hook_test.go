package hooks

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"podium/board"
)

func TestInputCheck(t *testing.T) {
	b := &board.Board{ID: "b", Periods: []board.Kind{board.Weekly, board.AllTime}}
	ok := Input{URL: "https://hooks.example.com/podium?token=abc", Events: []Event{PeriodClosed}, AllPeriods: true, Top: 10}
	for _, c := range []struct {
		name  string
		edit  func(*Input)
		field string
	}{
		{"good", func(*Input) {}, ""},
		{"period closed on all time only", func(in *Input) { in.Periods, in.AllPeriods = []board.Kind{board.AllTime}, false }, "periods"},
		{"plain http", func(in *Input) { in.URL = "http://hooks.example.com/" }, "url"},
		{"no scheme", func(in *Input) { in.URL = "hooks.example.com/x" }, "url"},
		{"javascript", func(in *Input) { in.URL = "javascript:alert(1)" }, "url"},
		{"credentials", func(in *Input) { in.URL = "https://user:pw@hooks.example.com/" }, "url"},
		{"fragment", func(in *Input) { in.URL = "https://hooks.example.com/#x" }, "url"},
		{"space", func(in *Input) { in.URL = "https://hooks.example.com/a b" }, "url"},
		{"not UTF-8", func(in *Input) { in.URL = "https://hooks.example.com/\xff" }, "url"},
		{"U+FFFD (a JSON lone surrogate)", func(in *Input) { in.URL = "https://hooks.example.com/\ufffd" }, "url"},
		{"C1 control", func(in *Input) { in.URL = "https://hooks.example.com/a\u0085b" }, "url"},
		{"right-to-left override", func(in *Input) { in.URL = "https://hooks.\u202eelpmaxe.com/" }, "url"},
		{"left-to-right embedding", func(in *Input) { in.URL = "https://hooks.example.com/\u202a" }, "url"},
		{"first strong isolate", func(in *Input) { in.URL = "https://hooks.example.com/\u2068x\u2069" }, "url"},
		{"right-to-left mark", func(in *Input) { in.URL = "https://hooks.example.com/\u200f" }, "url"},
		{"left-to-right mark", func(in *Input) { in.URL = "https://hooks.example.com/?q=\u200e" }, "url"},
		{"Arabic letter mark", func(in *Input) { in.URL = "https://hooks.example.com/\u061c" }, "url"},
		{"too long", func(in *Input) { in.URL = "https://hooks.example.com/" + strings.Repeat("a", MaxURLLen) }, "url"},
		{"no host", func(in *Input) { in.URL = "https:///path" }, "url"},
		{"bad port", func(in *Input) { in.URL = "https://hooks.example.com:99999/" }, "url"},
		{"no events", func(in *Input) { in.Events = nil }, "events"},
		{"unknown event", func(in *Input) { in.Events = []Event{"ping"} }, "events"},
		{"period the board lacks", func(in *Input) { in.Periods, in.AllPeriods = []board.Kind{board.Daily}, false }, "periods"},
		{"top 0", func(in *Input) { in.Top = 0 }, "top"},
		{"top too big", func(in *Input) { in.Top = MaxTop + 1 }, "top"},
	} {
		in := ok
		c.edit(&in)
		_, err := in.Check(b, false)
		var bad *InvalidError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (!errors.As(err, &bad) || bad.Fields[c.field] == ""):
			t.Errorf("%s: %v, want an error at %s", c.name, err, c.field)
		}
	}
}

// A hook keeps the periods it ticked, even when they are every period the
// board keeps today; following every period, later ones included, is a
// choice of its own.
func TestInputKeepsItsPeriods(t *testing.T) {
	b := &board.Board{ID: "b", Periods: []board.Kind{board.AllTime}}
	in := Input{URL: "https://hooks.example.com/", Events: []Event{NewLeader}, Periods: []board.Kind{board.AllTime}, Top: 1}
	got, err := in.Check(b, false)
	if err != nil || !slices.Equal(got.Periods, []board.Kind{board.AllTime}) || got.AllPeriods {
		t.Fatalf("all time ticked on an all-time board: %+v, %v", got, err)
	}
	h := Hook{Periods: got.Periods}
	if h.AllPeriods() || h.Follows(board.Daily) || !h.Follows(board.AllTime) {
		t.Fatalf("a hook of all time only follows day (%v) or every period (%v)", h.Follows(board.Daily), h.AllPeriods())
	}
	in.Periods, in.AllPeriods = nil, true
	if got, err := in.Check(b, false); err != nil || len(got.Periods) != 0 || !got.AllPeriods {
		t.Fatalf("every period: %+v, %v", got, err)
	}
	for name, edit := range map[string]func(*Input){
		"neither": func(in *Input) { in.Periods, in.AllPeriods = nil, false },
		"both":    func(in *Input) { in.Periods, in.AllPeriods = []board.Kind{board.AllTime}, true },
	} {
		in := in
		edit(&in)
		var bad *InvalidError
		if _, err := in.Check(b, false); !errors.As(err, &bad) || bad.Fields["periods"] == "" {
			t.Errorf("%s: %v, want an error at periods", name, err)
		}
	}
}

func TestRegistryLimitsAndSecrets(t *testing.T) {
	f := newFixture(t, time.Now())
	in := Input{URL: "https://hooks.example.com/", Events: []Event{NewLeader}, AllPeriods: true, Top: 1}
	var first Hook
	for i := range MaxHooks {
		h, err := f.reg.Create(f.ctx, &f.b, in, "admin:test")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h.Secret, "whsec_") || len(h.Secret) < 40 {
			t.Fatalf("secret %q", h.Secret)
		}
		if i == 0 {
			first = h
		}
	}
	if _, err := f.reg.Create(f.ctx, &f.b, in, "admin:test"); !errors.Is(err, ErrTooMany) {
		t.Fatalf("hook %d: %v, want ErrTooMany", MaxHooks+1, err)
	}
	rotated, err := f.reg.Rotate(f.ctx, f.b.ID, first.ID)
	if err != nil || rotated.Secret == first.Secret || rotated.URL != first.URL {
		t.Fatalf("rotate: %+v, %v", rotated, err)
	}
	if got, _ := f.reg.Get(f.ctx, f.b.ID, first.ID); got.Secret != rotated.Secret {
		t.Fatal("the rotated secret was not kept")
	}
	if _, err := f.reg.Rotate(f.ctx, f.b.ID, "wh_missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rotate a missing hook: %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://h.example.com/p?token=abc": "https://h.example.com/p?…",
		"https://h.example.com/p":           "https://h.example.com/p",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	h := Hook{URL: "https://h.example.com/p?token=abc", Events: []Event{NewLeader}, Top: 3}
	if strings.Contains(h.Summary(), "token") {
		t.Fatalf("the audit log's summary shows the query: %s", h.Summary())
	}
}
