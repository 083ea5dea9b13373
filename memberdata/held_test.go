package memberdata

import (
	"testing"

	"podium/board"
)

// TestDataHoldsHeldScores: a member's scores waiting in the review queue
// are data the board keeps about it (its id, the name it would set, the
// score): its copy lists them, even when nothing else of it is kept yet,
// and not others' held scores.
func TestDataHoldsHeldScores(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		bound := int64(1000)
		b, err := f.svc.Store.CreateBoard(f.ctx, board.Board{ID: "cup", Title: "Cup", Format: board.Format{Type: board.Decimal, Decimals: 2},
			Rules: &board.Rules{MaxValue: &bound, OnBreak: board.RulesHold}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"ann", "bob"} {
			res, err := f.svc.Store.Submit(f.ctx, b.ID, board.Submission{Member: m, Name: "Ann Held", Op: board.Set, Score: 1234}, board.Author{Actor: "api:game"})
			if err != nil || !res.Held {
				t.Fatalf("%s: %+v %v", m, res, err)
			}
		}
		d, err := f.svc.Data(f.ctx, &b, "ann")
		if err != nil {
			t.Fatalf("a member with a held score only: %v", err)
		}
		if len(d.Held) != 1 || d.Held[0].Name != "Ann Held" || d.Held[0].Op != "set" || d.Held[0].Value != "12.34" || d.Held[0].Rule != board.RuleMaxValue || d.Held[0].Sent.IsZero() {
			t.Fatalf("held: %+v", d.Held)
		}
	})
}
