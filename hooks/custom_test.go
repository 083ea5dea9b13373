package hooks

import (
	"encoding/json"
	"testing"
	"time"

	"podium/board"
)

// TestCustomPeriodClosed: a period of the board's own schedule is announced
// once when it closes, like a calendar one, named by its key and title.
func TestCustomPeriodClosed(t *testing.T) {
	f := newFixture(t, wednesday)
	f.b.Periods, f.b.Schedule, f.b.ScheduleName = append(f.b.Periods, board.Custom), "every 6h from 2026-11-25T00:00", "Heat"
	var err error
	if f.b, err = f.store.UpdateBoard(f.ctx, f.b); err != nil {
		t.Fatal(err)
	}
	recv := newReceiver(t, nil)
	f.hook(recv, Input{Events: []Event{PeriodClosed}, Periods: []board.Kind{board.Custom}, Top: 2})
	f.submit("ann", 300)
	heat := f.b.Current(board.Custom, f.clock.Now())
	r := f.runner(recv, Options{Grace: time.Minute})
	f.clock.Set(heat.End.Add(2 * time.Minute))
	f.pass(r, r)
	got := recv.deliveries()
	if len(got) != 1 || got[0].Payload.Type != PeriodClosed {
		t.Fatalf("closed: %+v", got)
	}
	var per struct{ Kind, Key, Title string }
	_ = json.Unmarshal(got[0].Payload.Period, &per)
	if per.Kind != "custom" || per.Key != heat.Key || per.Title != heat.Title() || len(got[0].Payload.Top) != 1 {
		t.Fatalf("period %s, top %+v", got[0].Payload.Period, got[0].Payload.Top)
	}
}
