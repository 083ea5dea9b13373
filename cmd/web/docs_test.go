package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"podium/app"
)

// repoRoot is where the README and docs/ are, from this package's folder.
const repoRoot = "../.."

// docFiles are the Markdown files a reader follows links between: the
// README (the front door), CONTRIBUTING and the manual in docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "CONTRIBUTING.md")}
	manual, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(manual) == 0 {
		t.Fatalf("no docs/*.md found from %s: %v", repoRoot, err)
	}
	return append(files, manual...)
}

var (
	fence      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$")
	codeSpan   = regexp.MustCompile("`[^`]*`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$`)
	hasScheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	tableCells = regexp.MustCompile("^\\|\\s*`--([a-z-]+)`\\s*\\|\\s*`([A-Z_]+)`\\s*\\|\\s*([^|]+?)\\s*\\|")
)

// prose is a Markdown file without its code: links inside fenced blocks and
// code spans are examples, not links.
func prose(md string) string {
	md = fence.ReplaceAllString(md, "")
	return codeSpan.ReplaceAllString(md, "")
}

// anchors are the fragment ids GitHub gives a file's headings: lower case,
// punctuation dropped, spaces as hyphens, repeats numbered.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(md, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		id := b.String()
		for n, base := 1, id; out[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		out[id] = true
	}
	return out
}

// TestDocsLinks: every relative link in the README, CONTRIBUTING and docs/
// leads to a file that exists, and every #anchor to a heading of its file.
// The manual moved out of the README into docs/; links between pages are
// what keeps it one manual.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	files := docFiles(t)
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		links := mdLink.FindAllStringSubmatch(prose(string(raw)), -1)
		if len(links) == 0 && filepath.Base(file) == "README.md" {
			t.Errorf("%s links nowhere: the front door must lead to the manual", file)
		}
		for _, l := range links {
			target := l[1]
			if hasScheme.MatchString(target) {
				continue // http(s), mailto: not ours to check here
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				if strings.HasPrefix(path, "/") {
					t.Errorf("%s: link %q is absolute; make it relative to the file", file, target)
					continue
				}
				dest = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q leads nowhere (%s)", file, target, dest)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q has an anchor into a file that is not Markdown", file, target)
				continue
			}
			md, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(md))[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", file, target, dest, frag)
			}
		}
	}
}

// TestConfigurationTableMatchesSettings: docs/configuration.md's table has
// one row per setting, in the order of the settings table --help prints,
// with the same flag, environment variable and default.
func TestConfigurationTableMatchesSettings(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	settings := app.Settings()
	var rows [][]string
	for _, line := range strings.Split(string(raw), "\n") {
		if m := tableCells.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1:])
		}
	}
	if len(rows) != len(settings) {
		t.Errorf("docs/configuration.md lists %d settings, app/settings.go has %d", len(rows), len(settings))
	}
	for i, s := range settings {
		if i >= len(rows) {
			t.Errorf("docs/configuration.md lacks --%s (%s)", s.Flag, s.Env)
			continue
		}
		def := "`" + s.Default + "`"
		if s.Default == "" {
			def = "(none)"
		}
		if got := rows[i]; got[0] != s.Flag || got[1] != s.Env || got[2] != def {
			t.Errorf("docs/configuration.md row %d is --%s %s %s; app/settings.go says --%s %s %s", i+1, got[0], got[1], got[2], s.Flag, s.Env, def)
		}
	}
}

// TestAnchors holds the slug rules to GitHub's on the headings the docs use.
func TestAnchors(t *testing.T) {
	t.Parallel()
	got := anchors("# Security: what the product promises\n## Writing Redis directly (game servers)\n```\n# not a heading\n```\n## Pages\n## Pages\n### `--addr` and ADDR\n")
	for _, want := range []string{"security-what-the-product-promises", "writing-redis-directly-game-servers", "pages", "pages-1", "--addr-and-addr"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a comment in a code block was taken for a heading")
	}
}
