package redistest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// SlotGuard is a go-redis hook that notes every script, function call and
// transaction whose keys fall in more than one hash slot: on a Redis Cluster
// each would fail with CROSSSLOT (or run in parts). Server.Client installs
// one, so every test on a single node checks what a Cluster would refuse.
// Keys of a script or FCALL are its declared KEYS; in a MULTI, each
// command's first argument after its name (all the product's transactions
// use single-key commands).
type SlotGuard struct {
	mu         sync.Mutex
	violations []string
	checked    map[string]int // "eval <first line>" / "fcall <name>" / "multi" -> times
}

// NewSlotGuard makes an empty guard.
func NewSlotGuard() *SlotGuard { return &SlotGuard{checked: map[string]int{}} }

// Violations lists what would fail on a Cluster.
func (g *SlotGuard) Violations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.violations...)
}

// Checked counts the scripts, function calls and transactions seen.
func (g *SlotGuard) Checked() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]int, len(g.checked))
	for k, v := range g.checked {
		out[k] = v
	}
	return out
}

// DialHook passes dials through.
func (g *SlotGuard) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

// ProcessHook checks one command.
func (g *SlotGuard) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		g.script(cmd)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook checks each command of a pipeline, and a transaction
// (MULTI ... EXEC) as a whole.
func (g *SlotGuard) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		tx := len(cmds) > 0 && cmds[0].Name() == "multi"
		var keys []string
		for _, c := range cmds {
			g.script(c)
			if tx && c.Name() != "multi" && c.Name() != "exec" {
				if k := keys1(c); k != "" {
					keys = append(keys, k)
				}
			}
		}
		if tx {
			g.check("multi", fmt.Sprintf("transaction of %d commands", len(cmds)-2), keys)
		}
		return next(ctx, cmds)
	}
}

func (g *SlotGuard) script(cmd redis.Cmder) {
	args := cmd.Args()
	switch cmd.Name() {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
	default:
		return
	}
	if len(args) < 3 {
		return
	}
	n, err := strconv.Atoi(fmt.Sprint(args[2]))
	if err != nil || len(args) < 3+n {
		return
	}
	keys := make([]string, n)
	for i := range n {
		keys[i] = fmt.Sprint(args[3+i])
	}
	what := cmd.Name() + " " + scriptName(fmt.Sprint(args[1]))
	g.check(what, what, keys)
}

func (g *SlotGuard) check(kind, what string, keys []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checked[kind]++
	if len(keys) < 2 {
		return
	}
	first := Slot(keys[0])
	for _, k := range keys[1:] {
		if s := Slot(k); s != first {
			g.violations = append(g.violations, fmt.Sprintf("%s: keys in slots %d and %d: %q", what, first, s, keys))
			return
		}
	}
}

// scriptName is a script's first line, short (or a function's or SHA's name).
func scriptName(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

func keys1(c redis.Cmder) string {
	args := c.Args()
	if len(args) < 2 {
		return ""
	}
	return fmt.Sprint(args[1])
}

// guard installs a SlotGuard on c that fails tb at cleanup if a script or
// transaction crossed slots.
func guard(tb testing.TB, c redis.UniversalClient) {
	g := NewSlotGuard()
	c.AddHook(g)
	tb.Cleanup(func() {
		for _, v := range g.Violations() {
			tb.Errorf("redistest: would fail on a Redis Cluster: %s", v)
		}
	})
}
