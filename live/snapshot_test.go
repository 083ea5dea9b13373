package live

import (
	"encoding/json"
	"reflect"
	"testing"

	"podium/rows"
)

func rowsOf(spec ...any) []rows.Row {
	var out []rows.Row
	for i := 0; i+1 < len(spec); i += 2 {
		out = append(out, rows.Row{Member: spec[i].(string), Rank: spec[i+1].(int), Score: "x"})
	}
	return out
}

func TestDiff(t *testing.T) {
	base := &Snapshot{Period: "all", Total: 4, Rows: rowsOf("a", 1, "b", 2, "c", 3, "d", 4)}
	tests := []struct {
		name    string
		next    *Snapshot
		changed bool
		sent    []string // members whose rows the diff carries
	}{
		{"nothing", &Snapshot{Period: "all", Total: 4, Rows: rowsOf("a", 1, "b", 2, "c", 3, "d", 4)}, false, nil},
		{"a move", &Snapshot{Period: "all", Total: 4, Rows: rowsOf("a", 1, "d", 2, "b", 3, "c", 4)}, true, []string{"d", "b", "c"}},
		{"a new tie", &Snapshot{Period: "all", Total: 4, Rows: []rows.Row{{Member: "a", Rank: 1, Score: "x"}, {Member: "b", Rank: 2, Tied: true, Score: "x"}, {Member: "c", Rank: 2, Tied: true, Score: "x"}, {Member: "d", Rank: 4, Score: "x"}}}, true, []string{"b", "c"}},
		{"an insert", &Snapshot{Period: "all", Total: 5, Rows: rowsOf("a", 1, "e", 2, "b", 3, "c", 4)}, true, []string{"e", "b", "c"}},
		{"a removal", &Snapshot{Period: "all", Total: 3, Rows: rowsOf("a", 1, "c", 2, "d", 3)}, true, []string{"c", "d"}},
		{"only the total", &Snapshot{Period: "all", Total: 9, Rows: rowsOf("a", 1, "b", 2, "c", 3, "d", 4)}, true, nil},
		{"a score change in place", &Snapshot{Period: "all", Total: 4, Rows: []rows.Row{{Member: "a", Rank: 1, Score: "y"}, {Member: "b", Rank: 2, Score: "x"}, {Member: "c", Rank: 3, Score: "x"}, {Member: "d", Rank: 4, Score: "x"}}}, true, []string{"a"}},
		{"emptied", &Snapshot{Period: "all", Total: 0, Rows: []rows.Row{}}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, changed := Diff(base, tc.next)
			if changed != tc.changed {
				t.Fatalf("changed = %v", changed)
			}
			if len(d.Rows) != len(tc.sent) {
				t.Fatalf("diff carries %d rows, want %v: %+v", len(d.Rows), tc.sent, d.Rows)
			}
			for _, m := range tc.sent {
				if _, ok := d.Rows[m]; !ok {
					t.Fatalf("diff lacks %s", m)
				}
			}
			// What a browser rebuilds equals the new snapshot, through JSON.
			raw, _ := json.Marshal(d)
			var back Delta
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			got := Apply(base, back)
			if !reflect.DeepEqual(got.Rows, tc.next.Rows) && !(len(got.Rows) == 0 && len(tc.next.Rows) == 0) || got.Total != tc.next.Total {
				t.Fatalf("apply gave %+v, want %+v", got, tc.next)
			}
		})
	}
}
