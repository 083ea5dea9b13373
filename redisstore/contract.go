package redisstore

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// The Go-Lua contract. Each script's leading comment block declares its
// KEYS and ARGV by name:
//
//	-- KEYS: 1 def, 2 names (a description may follow a name), 3 periods
//	-- KEYS per period: 1 zset, 2 entries
//	-- ARGV: 1 desc, 2 prefix_width, 3 fields_width, 4 rank_style, 5 mode,
//	--   6.. label (a name with .. takes any number of values, last)
//
// A list goes on over lines that start with "--" and three spaces. After
// the fixed KEYS (ARGV) come any number of repetitions of each "per" part,
// parts in the order they are declared; "for" declares a part that follows
// once, one of several (the arguments of one mode). A script that includes
// lib/encoding.lua starts its ARGV with that library's four.
//
// Go gives each key and argument by the same name (luaCall); the Lua side
// reads fixed positions only through "local k_<name> = KEYS[n]" and "local
// a_<name> = ARGV[n]", and a part's through a table of its names
// ("local KEYS_PER_PERIOD = {'zset', 'entries'}"). TestLuaContract holds
// the Lua to the headers; every call the package's tests make is checked
// against its script's header (checkCalls), so the two sides cannot drift.

// luaScript is a script with its declared KEYS and ARGV.
type luaScript struct {
	*redis.Script
	name       string
	keys, argv signature
}

// signature is one side of a script's contract: its fixed names, then the
// names of each repeated part, in order.
type signature struct {
	fixed []param
	parts []part
}

type part struct {
	name   string
	params []param
}

// param is one declared position; a variadic one takes any number of
// values and comes last in its list.
type param struct {
	name     string
	variadic bool
}

var (
	declLine  = regexp.MustCompile(`^-- (KEYS|ARGV)(?: (?:per|for) ([a-z_]+))?: (.*)$`)
	paramDecl = regexp.MustCompile(`^(\d+)(\.\.)? ([a-z][a-z0-9_]*)(?: \(.*\))?$`)
)

// header is the leading comment block of a Lua source.
func header(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "--") {
			break
		}
		out = append(out, line)
	}
	return out
}

// parseSignatures reads the KEYS and ARGV declarations of a script's header.
func parseSignatures(src string) (keys, argv signature, err error) {
	lines := header(src)
	for i := 0; i < len(lines); i++ {
		m := declLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		text := m[3]
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "--   ") {
			i++
			text += " " + strings.TrimSpace(strings.TrimPrefix(lines[i], "--"))
		}
		params, err := parseParams(text)
		if err != nil {
			return keys, argv, fmt.Errorf("%s: %w", strings.TrimSuffix(m[0][3:], m[3]), err)
		}
		sig := &keys
		if m[1] == "ARGV" {
			sig = &argv
		}
		if m[2] == "" {
			if sig.fixed != nil || len(sig.parts) > 0 {
				return keys, argv, fmt.Errorf("%s declared twice, or after its parts", m[1])
			}
			sig.fixed = params
			continue
		}
		if slices.ContainsFunc(sig.parts, func(p part) bool { return p.name == m[2] }) {
			return keys, argv, fmt.Errorf("%s per %s declared twice", m[1], m[2])
		}
		sig.parts = append(sig.parts, part{name: m[2], params: params})
	}
	return keys, argv, nil
}

// parseParams reads "1 def, 2 names (its hash), 3.. zset": numbered from 1,
// in order, a variadic name only last. Commas inside parentheses belong to a
// description.
func parseParams(text string) ([]param, error) {
	var items []string
	depth, start := 0, 0
	for i, r := range text {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, text[start:i])
				start = i + 1
			}
		}
	}
	items = append(items, text[start:])
	out := make([]param, 0, len(items))
	for i, item := range items {
		m := paramDecl.FindStringSubmatch(strings.TrimSpace(item))
		if m == nil {
			return nil, fmt.Errorf("%q is not <n> <name> (<description>)", strings.TrimSpace(item))
		}
		if n, _ := strconv.Atoi(m[1]); n != i+1 {
			return nil, fmt.Errorf("%s is numbered %s, want %d", m[3], m[1], i+1)
		}
		if len(out) > 0 && out[len(out)-1].variadic {
			return nil, fmt.Errorf("%s follows the variadic %s", m[3], out[len(out)-1].name)
		}
		out = append(out, param{name: m[3], variadic: m[2] != ""})
	}
	return out, nil
}

// checkCalls makes every call check its names against its script's
// header, and panic on a mismatch: the package's tests turn it on.
var checkCalls bool

// luaCall is one call of a script: its KEYS and ARGV, each given by the name
// the script's header declares.
type luaCall struct {
	s        *luaScript
	keys     []string
	argv     []any
	part     string   // the part the next keys and arguments belong to
	keyNames []string // recorded when checkCalls
	argNames []string
}

// call starts a call of s with room for about nkeys keys and nargs
// arguments.
func (s *luaScript) call(nkeys, nargs int) *luaCall {
	return &luaCall{s: s, keys: make([]string, 0, nkeys), argv: make([]any, 0, nargs)}
}

// in makes the next keys and arguments one repetition of part p (after the
// fixed ones); "" goes back to the fixed ones, for a variadic tail.
func (c *luaCall) in(p string) *luaCall {
	c.part = p
	return c
}

func (c *luaCall) key(name, k string) *luaCall {
	c.keys = append(c.keys, k)
	if checkCalls {
		c.keyNames = append(c.keyNames, c.part+"."+name)
	}
	return c
}

func (c *luaCall) arg(name string, v any) *luaCall {
	c.argv = append(c.argv, v)
	if checkCalls {
		c.argNames = append(c.argNames, c.part+"."+name)
	}
	return c
}

// args gives a variadic argument its values.
func (c *luaCall) args(name string, vs ...any) *luaCall {
	for _, v := range vs {
		c.arg(name, v)
	}
	return c
}

// keysOf gives a variadic key its keys.
func (c *luaCall) keysOf(name string, ks ...string) *luaCall {
	for _, k := range ks {
		c.key(name, k)
	}
	return c
}

// encoding gives the four arguments lib/encoding.lua reads: how board b
// keeps its entries.
func (c *luaCall) encoding(b *board.Board) *luaCall {
	enc := encodingOf(b)
	desc := "0"
	if enc.desc {
		desc = "1"
	}
	return c.arg("desc", desc).arg("prefix_width", enc.prefixWidth).arg("fields_width", enc.fieldsWidth).arg("rank_style", string(b.RankStyle))
}

// run runs the call (EVALSHA, falling back to EVAL) on a client or a
// pipeline.
func (c *luaCall) run(ctx context.Context, r redis.Scripter) *redis.Cmd {
	if checkCalls {
		if err := c.check(); err != nil {
			panic(fmt.Sprintf("lua/%s.lua: %v", c.s.name, err))
		}
	}
	return c.s.Run(ctx, r, c.keys, c.argv...)
}

// evalSha runs the call with EVALSHA only, in a pipeline: the caller loads
// the script when Redis answers NOSCRIPT.
func (c *luaCall) evalSha(ctx context.Context, r redis.Scripter) *redis.Cmd {
	if checkCalls {
		if err := c.check(); err != nil {
			panic(fmt.Sprintf("lua/%s.lua: %v", c.s.name, err))
		}
	}
	return c.s.EvalSha(ctx, r, c.keys, c.argv...)
}

// check compares the names the call gave with its script's header.
func (c *luaCall) check() error {
	if err := c.s.keys.match(c.keyNames); err != nil {
		return fmt.Errorf("KEYS: %w", err)
	}
	if err := c.s.argv.match(c.argNames); err != nil {
		return fmt.Errorf("ARGV: %w", err)
	}
	return nil
}

// match checks names given as "<part>.<name>" ("" part: a fixed one)
// against the signature.
func (sig signature) match(given []string) error {
	i := 0
	take := func(p string, params []param) error {
		for _, want := range params {
			if want.variadic {
				for i < len(given) && given[i] == p+"."+want.name {
					i++
				}
				continue
			}
			if i >= len(given) {
				return fmt.Errorf("missing %s", p+"."+want.name)
			}
			if given[i] != p+"."+want.name {
				return fmt.Errorf("position %d is %s, the header declares %s", i+1, given[i], p+"."+want.name)
			}
			i++
		}
		return nil
	}
	if err := take("", sig.fixed); err != nil {
		return err
	}
	at := 0
	for i < len(given) {
		from := i
		p, _, _ := strings.Cut(given[i], ".")
		j := slices.IndexFunc(sig.parts, func(x part) bool { return x.name == p })
		if j < 0 || j < at {
			return fmt.Errorf("position %d is %s: no such part, or out of the header's order", i+1, given[i])
		}
		at = j
		if err := take(p, sig.parts[j].params); err != nil {
			return err
		}
		if i == from {
			return fmt.Errorf("position %d is %s, which its part does not declare", i+1, given[i])
		}
	}
	return nil
}

// loadScript reads lua/<name>.lua and its declarations, and checks that a
// script including lib/encoding.lua starts its ARGV with that library's.
func loadScript(name string) (*luaScript, error) {
	src := luaSource(name)
	full, err := assemble(src)
	if err != nil {
		return nil, err
	}
	keys, argv, err := parseSignatures(src)
	if err != nil {
		return nil, err
	}
	libs, _ := libraries(usesOf(src))
	if slices.Contains(libs, "encoding") && (keys.fixed != nil || argv.fixed != nil) {
		_, enc, err := parseSignatures(luaSource("lib/encoding"))
		if err != nil {
			return nil, fmt.Errorf("lib/encoding.lua: %w", err)
		}
		if len(argv.fixed) < len(enc.fixed) || !slices.Equal(argv.fixed[:len(enc.fixed)], enc.fixed) {
			return nil, fmt.Errorf("it includes lib/encoding.lua, so its ARGV start with %v", enc.fixed)
		}
	}
	return &luaScript{Script: redis.NewScript(full), name: name, keys: keys, argv: argv}, nil
}
