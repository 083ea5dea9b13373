package audit

import (
	"testing"
	"time"

	"podium/board"
)

func TestScoreChange(t *testing.T) {
	b := &board.Board{ID: "sales", Format: board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"}, DefaultPeriod: board.Monthly,
		Periods: []board.Kind{board.Monthly, board.Yearly}, TimeZone: "UTC"}
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	month, year := b.Current(board.Monthly, at), b.Current(board.Yearly, at)
	res := board.Result{Member: "grace", Changes: []board.Change{
		{Period: month, Before: board.Place{}, After: board.Place{Ranked: true, Score: 1234, Rank: 3}},
		{Period: year, Before: board.Place{Ranked: true, Score: 100, Rank: 9}, After: board.Place{Ranked: true, Score: 1334, Rank: 5}},
	}}
	sub := board.Submission{Member: "grace", Score: 1234, Op: board.Incr}
	cases := []struct {
		name, why string
		want      Entry
	}{
		{"no reason", "", Entry{Actor: "demo", Action: "score.incr", Board: "sales", Member: "grace", Period: month.String(),
			Before: "(none)", After: "$12.34 (rank 3)", Reason: "incr $12.34"}},
		{"reason", "refund", Entry{Actor: "demo", Action: "score.incr", Board: "sales", Member: "grace", Period: month.String(),
			Before: "(none)", After: "$12.34 (rank 3)", Reason: "incr $12.34: refund"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ScoreChange(b, "demo", sub, res, tc.why); got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
