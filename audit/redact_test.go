package audit

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/redisstore"
)

// redactLua runs lib/redact.lua's redact_entry on one entry.
var redactLua = redisstore.Script(`-- uses: redact
local f = cjson.decode(ARGV[1])
local names = cjson.decode(ARGV[2])
local changed = redact_entry(f, ARGV[3], ARGV[4], names, ARGV[5])
if changed then changed = 1 else changed = 0 end
return {changed, cjson.encode(f)}`)

// TestRedactTwins: the Go rule (archived entries) and the Lua one (Redis
// streams) redact every kind of entry alike.
func TestRedactTwins(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	batch := "alice\tincr\t5\t\t0\t5\t1\tAlice Liddell\t\nbob\tincr\t3\t\t0\t3\t2\tBob\t"
	r := redisstore.Redaction{Board: "chess", Member: "alice", Pseudonym: "erased-1", Names: []string{"Al"}}
	for _, c := range []struct {
		name   string
		fields []string
		want   map[string]string // the fields that change
	}{
		{"legacy row", []string{"board", "chess", "action", "score.incr", "member", "alice", "reason", "bonus for alice"},
			map[string]string{"member": "erased-1", "reason": Redacted}},
		{"rename", []string{"board", "chess", "action", "member.rename", "member", "alice", "before", "Alice", "after", "Ally", "reason", "Alice asked"},
			map[string]string{"member": "erased-1", "before": Redacted, "after": Redacted, "reason": Redacted}},
		{"batch", []string{"board", "chess", "action", "scores", "items", batch, "reason", "import"},
			map[string]string{"items": strings.Replace(strings.Replace(batch, "Alice Liddell", "", 1), "alice", "erased-1", 1)}},
		{"batch naming her", []string{"board", "chess", "action", "scores", "items", batch, "reason", "import for Alice Liddell"},
			map[string]string{"items": strings.Replace(strings.Replace(batch, "Alice Liddell", "", 1), "alice", "erased-1", 1), "reason": Redacted}},
		{"another's, naming her", []string{"board", "chess", "action", "scores", "member", "bob", "reason", "helped alice"},
			map[string]string{"reason": Redacted}},
		{"another's, a longer word", []string{"board", "chess", "action", "scores", "member", "bob", "reason", "malice_x or alice-2"}, nil},
		{"another's, a name", []string{"board", "chess", "action", "scores", "member", "bob", "reason", "thanks, Al!"},
			map[string]string{"reason": Redacted}},
		{"another board", []string{"board", "golf", "action", "scores", "member", "alice", "reason", "alice"}, nil},
		{"teams", []string{"board", "chess", "action", "scores", "teams", "alice\t\tred\nbob\tred\tblue"},
			map[string]string{"teams": "erased-1\t\tred\nbob\tred\tblue"}},
		{"team move", []string{"board", "chess", "action", "member.team", "member", "alice", "before", "red", "after", "blue"},
			map[string]string{"member": "erased-1"}},
		{"personal link", []string{"board", "chess", "action", "link.revoke", "member", "alice", "before", "personal Al (k1)", "after", "(revoked)"},
			map[string]string{"member": "erased-1", "before": Redacted}},
		{"personal link named by the id", []string{"board", "chess", "action", "link.create", "member", "alice", "after", "personal alice (k2)"},
			map[string]string{"member": "erased-1", "after": Redacted}},
		{"another's personal link", []string{"board", "chess", "action", "link.create", "member", "bob", "after", "personal alice (k3)"}, nil},
		{"done before", []string{"board", "chess", "action", "member.erase", "member", "erased-1", "reason", Redacted}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := map[string]string{}
			for i := 0; i < len(c.fields); i += 2 {
				f[c.fields[i]] = c.fields[i+1]
			}
			want := maps.Clone(f)
			maps.Copy(want, c.want)
			got := maps.Clone(f)
			changed := Redact(got, r)
			if !maps.Equal(got, want) || changed != (c.want != nil) {
				t.Errorf("Go: %v %q, want %q", changed, got, want)
			}
			flat, _ := json.Marshal(c.fields)
			names, _ := json.Marshal(r.Names)
			reply, err := redactLua.Run(ctx, rdb, []string{"{x}"}, string(flat), string(names), r.Member, r.Pseudonym, r.Board).Slice()
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			if err := json.Unmarshal([]byte(reply[1].(string)), &out); err != nil {
				t.Fatal(err)
			}
			lua := map[string]string{}
			for i := 0; i+1 < len(out); i += 2 {
				lua[out[i]] = out[i+1]
			}
			if !maps.Equal(lua, want) || (reply[0].(int64) == 1) != (c.want != nil) {
				t.Errorf("Lua: %v %q, want %q", reply[0], lua, want)
			}
		})
	}
}

// TestRedactLegacy: entries earlier versions wrote to the global streams
// and the board's legacy stream lose the member; other boards' stay.
func TestRedactLegacy(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	add := func(key, board, member, reason string) {
		rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{"t", "1", "actor", "admin:root", "action", "score.incr", "board", board, "member", member, "reason", reason}})
	}
	for _, e := range [][3]string{{"chess", "bob", "opening"}, {"chess", "alice", "bonus"}, {"golf", "alice", "another alice"}, {"chess", "bob", "after alice"}} {
		for _, k := range []string{allKey, actorKey + "admin:root"} {
			add(k, e[0], e[1], e[2])
		}
		if e[0] == "chess" {
			add(legacyBoardKey+"chess", e[0], e[1], e[2])
		}
	}
	store := redisstore.NewStore(rdb)
	n, err := New(rdb).RedactLegacy(ctx, store, redisstore.Redaction{Board: "chess", Member: "alice", Pseudonym: "erased-1"})
	if err != nil || n != 6 {
		t.Fatalf("redacted %d entries: %v", n, err)
	}
	for _, k := range []string{allKey, actorKey + "admin:root", legacyBoardKey + "chess"} {
		msgs, _ := rdb.XRange(ctx, k, "-", "+").Result()
		for _, m := range msgs {
			if m.Values["board"] == "chess" && strings.Contains(m.Values["member"].(string)+m.Values["reason"].(string), "alice") {
				t.Errorf("%s: %v", k, m.Values)
			}
			if m.Values["board"] == "golf" && m.Values["member"] != "alice" {
				t.Errorf("%s: another board's entry changed: %v", k, m.Values)
			}
		}
	}
}
