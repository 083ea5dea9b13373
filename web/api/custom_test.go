package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"podium/board"
	"podium/internal/webtest"
)

// TestAPICustomPeriods: a board on its own schedule round-trips it, keeps
// the custom period like the calendar ones (reads of the current one and of
// a past one by its key), and refuses a schedule that is wrong, missing or
// without the custom period, naming the field.
func TestAPICustomPeriods(t *testing.T) {
	f := webtest.New(t)
	key := f.Key("ops", "")
	status, out, _ := f.Call("POST", "/api/v1/boards", key, `{"id":"ctf","title":"CTF","periods":["custom","all"],"default_period":"custom","time_zone":"Europe/Paris","schedule":"0 18 * * FRI","schedule_name":"Sprint"}`)
	if status != 201 || out["schedule"] != "0 18 * * FRI" || out["schedule_name"] != "Sprint" {
		t.Fatalf("create: %d %v", status, out)
	}
	if status, out, _ := f.Call("POST", "/api/v1/boards/ctf/scores", key, `{"member":"ann","score":5}`); status != 200 {
		t.Fatalf("submit: %d %v", status, out)
	}
	b := board.Board{Periods: []board.Kind{board.Custom}, TimeZone: "Europe/Paris", Schedule: "0 18 * * FRI"}
	cur := b.Current(board.Custom, webtest.Now)
	status, out, _ = f.Call("GET", "/api/v1/boards/ctf/entries", "", "")
	if status != 200 || out["total"] != 1.0 || !strings.Contains(fmt.Sprint(out["period"]), "key:"+cur.Key) {
		t.Fatalf("the current sprint: %d %v", status, out)
	}
	if status, body, _ := f.Send("GET", "/api/v1/boards/ctf/export?period=custom&at="+cur.Key, key, nil); status != 200 || !strings.Contains(body, "1,ann,ann,5,5") {
		t.Fatalf("the sprint's export: %d %s", status, body)
	}
	prev := cur.Prev()
	status, out, _ = f.Call("GET", "/api/v1/boards/ctf/entries?period=custom&at="+prev.Key, "", "")
	if status != 200 || out["total"] != 0.0 || !strings.Contains(fmt.Sprint(out["period"]), "start:"+prev.Start.Format(time.RFC3339)) {
		t.Fatalf("the sprint before: %d %v", status, out)
	}
	if status, out, _ := f.Call("GET", "/api/v1/boards/ctf/entries?period=custom&at=2026-W47", "", ""); status != 404 || webtest.ErrCode(out) != "period_not_found" {
		t.Fatalf("a week's key for a sprint: %d %v", status, out)
	}
	for _, c := range []struct{ body, field string }{
		{`{"title":"CTF","periods":["custom"],"schedule":"*/5 * * * *"}`, "schedule"},
		{`{"title":"CTF","periods":["custom"]}`, "schedule"},
		{`{"title":"CTF","periods":["week"],"schedule":"0 18 * * FRI"}`, "schedule"},
		{`{"title":"CTF","periods":["custom"],"schedule":"every 72h from 2026-12-01T00:00","schedule_name":"` + strings.Repeat("n", 25) + `"}`, "schedule_name"},
	} {
		if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf", key, c.body); status != 422 || webtest.ErrField(out) != c.field {
			t.Errorf("%s: %d %v", c.body, status, out)
		}
	}
	if status, out, _ := f.Call("PUT", "/api/v1/boards/ctf", key, `{"title":"CTF","periods":["custom","all"],"time_zone":"Europe/Paris","schedule":"every 72h from 2026-12-01T00:00"}`); status != 200 || out["schedule"] != "every 72h from 2026-12-01T00:00" || out["schedule_name"] != nil {
		t.Fatalf("a new schedule: %d %v", status, out)
	}
}
