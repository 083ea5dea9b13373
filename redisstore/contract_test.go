package redisstore

import (
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var (
	fixedRead  = regexp.MustCompile(`(?m)^local ([ka])_([a-z0-9_]+) = (KEYS|ARGV)\[(\d+)\]$`)
	partNames  = regexp.MustCompile(`(?m)^local (KEYS|ARGV)_(?:PER|FOR)_([A-Z_]+) = \{([^}]*)\}$`)
	fixedCount = regexp.MustCompile(`(?m)^local (KEYS|ARGV)_FIXED = (\d+)$`)
	literalAt  = regexp.MustCompile(`\b(KEYS|ARGV)\[\d+\]`)
)

// TestLuaContract holds every script and library to the KEYS and ARGV its
// header declares (contract.go): each declares its KEYS and ARGV in the
// header's grammar; the Lua reads a fixed position only as "local
// k_<name> = KEYS[n]" (a_ for ARGV) with the header's name at n, and a
// part's names from a table equal to the header's; no other KEYS[n] or
// ARGV[n] appears. The calls' side is checked on every call the package's
// tests make (checkCalls).
func TestLuaContract(t *testing.T) {
	files, err := fs.Glob(luaFiles, "lua/*.lua")
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := fs.Glob(luaFiles, "lua/lib/*.lua")
	for _, file := range append(files, libs...) {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "lua/"), ".lua")
		if name == "function" { // a Function library: FCALL's arguments, documented in docs/
			continue
		}
		t.Run(name, func(t *testing.T) {
			src := luaSource(name)
			keys, argv, err := parseSignatures(src)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(name, "lib/") {
				if keys.fixed == nil && len(keys.parts) == 0 {
					t.Error("the header declares no KEYS")
				}
				if _, err := loadScript(name); err != nil {
					t.Error(err)
				}
			}
			checkLuaReads(t, src, keys, argv)
		})
	}
}

func checkLuaReads(t *testing.T, src string, keys, argv signature) {
	t.Helper()
	sigOf := func(list string) signature {
		if list == "KEYS" {
			return keys
		}
		return argv
	}
	body := strings.Join(strings.Split(src, "\n")[len(header(src)):], "\n")
	for _, m := range fixedRead.FindAllStringSubmatch(body, -1) {
		prefix, name, list := m[1], m[2], m[3]
		if (prefix == "k") != (list == "KEYS") {
			t.Errorf("%q: k_ names a key, a_ an argument", m[0])
			continue
		}
		n, _ := strconv.Atoi(m[4])
		fixed := sigOf(list).fixed
		if n < 1 || n > len(fixed) || fixed[n-1].variadic {
			t.Errorf("%q: the header declares no fixed %s %d", m[0], list, n)
		} else if fixed[n-1].name != name {
			t.Errorf("%q: the header names %s %d %s", m[0], list, n, fixed[n-1].name)
		}
	}
	for _, m := range partNames.FindAllStringSubmatch(body, -1) {
		pname := strings.ToLower(m[2])
		var got []string
		for _, q := range strings.Split(m[3], ",") {
			got = append(got, strings.Trim(strings.TrimSpace(q), "'"))
		}
		sig := sigOf(m[1])
		i := slices.IndexFunc(sig.parts, func(p part) bool { return p.name == pname })
		if i < 0 {
			t.Errorf("%q: the header declares no %s per %s", m[0], m[1], pname)
			continue
		}
		var want []string
		for _, p := range sig.parts[i].params {
			want = append(want, p.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: the header declares %s per %s %v", m[0], m[1], pname, want)
		}
	}
	for _, m := range fixedCount.FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[2])
		fixed := sigOf(m[1]).fixed
		if len(fixed) > 0 && fixed[len(fixed)-1].variadic {
			fixed = fixed[:len(fixed)-1]
		}
		if n != len(fixed) {
			t.Errorf("%q: the header declares %d fixed %s", m[0], len(fixed), m[1])
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if fixedRead.MatchString(line) {
			continue
		}
		if code, _, _ := strings.Cut(line, "--"); literalAt.MatchString(code) {
			t.Errorf("%q reads KEYS or ARGV by number: give the position a name (local k_<name> = KEYS[n])", strings.TrimSpace(line))
		}
	}
}

// TestSignatureMatch checks the names a call gives against a header.
func TestSignatureMatch(t *testing.T) {
	keys, argv, err := parseSignatures(`-- a script
-- KEYS: 1 def, 2 zsets (one, two,
--   or more), 3.. extra
-- KEYS per period: 1 zset, 2 entries
-- ARGV: 1 mode
-- ARGV per item: 1 member, 2.. field
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig   signature
		given string
		ok    bool
	}{
		{keys, ".def .zsets", true},
		{keys, ".def .zsets .extra .extra period.zset period.entries period.zset period.entries", true},
		{keys, ".def", false},
		{keys, ".zsets .def", false},
		{keys, ".def .zsets period.zset", false},
		{keys, ".def .zsets period.entries period.zset", false},
		{keys, ".def .zsets item.idem", false},
		{argv, ".mode item.member item.member item.field item.field", true},
		{argv, ".mode .member", false},
	} {
		err := c.sig.match(strings.Fields(c.given))
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.given, err, c.ok)
		}
	}
	for _, bad := range []string{
		"-- KEYS: 1 def, 3 names\n",
		"-- KEYS: 1.. def, 2 names\n",
		"-- KEYS: 1 Def\n",
		"-- KEYS: 1 def\n-- KEYS: 1 names\n",
		"-- KEYS per p: 1 a\n-- KEYS per p: 1 b\n",
	} {
		if _, _, err := parseSignatures(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
