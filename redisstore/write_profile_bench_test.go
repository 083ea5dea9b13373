package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// Two tools for the submit script's cost, on BenchmarkWriteCalls' board.
// This machine's figures swing by a third from one minute to the next, so
// both compare within one run:
//
// BenchmarkSubmitScriptAB alternates calls of the script as it stands at a
// git revision and as it is in the work tree, each timed inside Redis, and
// prints each one's median µs per score:
//
//	WRITE_AB_REV=HEAD~1 go test ./redisstore -run '^$' -bench SubmitScriptAB -benchtime 1000x
//
// BenchmarkSubmitScriptParts times the work tree's script between marks
// (top-level lines of lua/submit.lua starting with one of the prefixes in
// WRITE_PARTS, separated by |) with redis.call('TIME'), and prints the µs per
// score of each part and of each command the calls ran:
//
//	WRITE_PARTS='local orig = {}|local state, plans|local out, applied|if BULK then|audit_add(' \
//	  go test ./redisstore -run '^$' -bench SubmitScriptParts -benchtime 1000x
//
// Both send group-commit calls of WRITE_ITEMS single scores (20 unless
// set); WRITE_BATCH=1 sends atomic batches instead, WRITE_NORANKS=1 asks no
// ranks.

// writeCall builds one submit call of random increments on the board.
func writeCall(s *Store, bd *board.Board, rng *rand.Rand) (*luaCall, int) {
	items, _ := strconv.Atoi(os.Getenv("WRITE_ITEMS"))
	if items <= 0 {
		items = 20
	}
	each := os.Getenv("WRITE_BATCH") != "1"
	subs := make([]board.Submission, items)
	var times []time.Time
	now := time.Now()
	for i := range subs {
		subs[i] = board.Submission{Member: fmt.Sprintf("m%d", rng.IntN(writeCostMembers())), Score: float64(1 + rng.IntN(100)), Op: board.Incr}
		if each {
			times = append(times, now.Add(time.Duration(i)*time.Microsecond))
		}
	}
	c, _ := s.submitCall(bd, subs, times, board.BatchOptions{By: tester, NoRanks: os.Getenv("WRITE_NORANKS") == "1"}, !each, now)
	return c, items
}

// timed wraps a script so that it returns its status and the µs it ran.
func timed(body string) *redis.Script {
	return redis.NewScript("local function body(KEYS, ARGV)\n" + body + "\nend\nlocal t0 = redis.call('TIME')\nlocal r = body(KEYS, ARGV)\n" +
		"local t1 = redis.call('TIME')\nreturn {r[1], (t1[1] - t0[1]) * 1000000 + t1[2] - t0[2]}")
}

func BenchmarkSubmitScriptAB(b *testing.B) {
	rev := os.Getenv("WRITE_AB_REV")
	if rev == "" {
		b.Skip("set WRITE_AB_REV to the git revision to compare with")
	}
	s, bd := writeCostSetup(b)
	ctx := context.Background()
	show := func(path string) string {
		out, err := exec.Command("git", "show", rev+":redisstore/"+path).Output()
		if err != nil {
			b.Fatalf("git show %s:redisstore/%s: %v", rev, path, err)
		}
		return string(out)
	}
	src := show("lua/submit.lua")
	libs, err := libraries(usesOf(src))
	if err != nil {
		b.Fatal(err)
	}
	var old strings.Builder
	for _, l := range libs {
		old.WriteString(show("lua/lib/"+l+".lua") + "\n")
	}
	old.WriteString(src)
	cur, err := assemble(luaSource("submit"))
	if err != nil {
		b.Fatal(err)
	}
	scripts := []*redis.Script{timed(old.String()), timed(cur)}
	rng := rand.New(rand.NewPCG(3, 4))
	var us [2][]float64
	for b.Loop() {
		for v, sc := range scripts {
			c, n := writeCall(s, bd, rng)
			r, err := sc.Run(ctx, s.rdb, c.keys, c.argv...).Slice()
			if err != nil || r[0] != "ok" {
				b.Fatal(r, err)
			}
			us[v] = append(us[v], float64(r[1].(int64))/float64(n))
		}
	}
	for v, name := range []string{rev, "work tree"} {
		slices.Sort(us[v])
		fmt.Printf("%-12s median %.1f µs a score, quartiles %.1f-%.1f (%d calls)\n", name, us[v][len(us[v])/2], us[v][len(us[v])/4], us[v][len(us[v])*3/4], len(us[v]))
	}
}

func BenchmarkSubmitScriptParts(b *testing.B) {
	s, bd := writeCostSetup(b)
	ctx := context.Background()
	marks := strings.Split(os.Getenv("WRITE_PARTS"), "|")
	var out []string
	head := true
	for _, l := range strings.Split(luaSource("submit"), "\n") {
		if head && !strings.HasPrefix(l, "--") {
			head = false
			out = append(out, "local prof = {} local function mark(n) local t = redis.call('TIME') prof[#prof + 1] = n prof[#prof + 1] = t[1] * 1000000 + t[2] end mark('top')")
		}
		for _, m := range marks {
			if !head && m != "" && strings.HasPrefix(l, m) {
				out = append(out, "mark("+strconv.Quote(m)+")")
				break
			}
		}
		if strings.TrimSpace(l) == "return {'ok', json}" {
			l = "mark('end') return {'ok', json, cjson.encode(prof)}"
		}
		out = append(out, l)
	}
	full, err := assemble(strings.Join(out, "\n"))
	if err != nil {
		b.Fatal(err)
	}
	sc := redis.NewScript(full)
	rng := rand.New(rand.NewPCG(3, 4))
	part, order, scores := map[string]float64{}, []string{}, 0
	if err := s.rdb.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, n := writeCall(s, bd, rng)
		r, err := sc.Run(ctx, s.rdb, c.keys, c.argv...).Slice()
		if err != nil || len(r) < 3 {
			b.Fatal(r, err)
		}
		var prof []any
		if err := json.Unmarshal([]byte(r[2].(string)), &prof); err != nil {
			b.Fatal(err)
		}
		for i := 0; i+3 < len(prof); i += 2 {
			name := prof[i].(string)
			if _, ok := part[name]; !ok {
				order = append(order, name)
			}
			part[name] += prof[i+3].(float64) - prof[i+1].(float64)
		}
		scores += n
	}
	for _, name := range order {
		fmt.Printf("from %-40q %7.2f µs a score\n", name, part[name]/float64(scores))
	}
	info, err := s.rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var calls, usec float64
		if _, err := fmt.Sscanf(rest, "calls=%g,usec=%g", &calls, &usec); err == nil {
			fmt.Printf("%-24s %6.3f calls %7.2f µs a score\n", strings.TrimPrefix(name, "cmdstat_"), calls/float64(scores), usec/float64(scores))
		}
	}
}
