package audit

// An erasure's rule for audit entries, in Go: the archive's copies of the
// boards' streams (package archive) are redacted with it, as Redis' are by
// its twin, redisstore/lua/lib/redact.lua, which says the rule; a test holds
// the two together. Entries are their fields, as a stream entry (or the
// archive's JSON of it) holds them.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/redisstore"
)

// Redacted is what takes the place of a display name, or of a reason that
// names an erased member.
const Redacted = "(erased)"

// About says whether an entry is about member: its member field, or a line
// of its items or teams.
func About(f map[string]string, member string) bool {
	if f["member"] == member {
		return true
	}
	for _, k := range []string{"items", "teams", "segments"} {
		for _, line := range strings.Split(f[k], "\n") {
			if id, _, _ := strings.Cut(line, "\t"); id == member && f[k] != "" {
				return true
			}
		}
	}
	return false
}

// NamesIn lists the display names an entry shows member with: a rename's
// before and after, the names its items set.
func NamesIn(f map[string]string, member string) []string {
	var out []string
	if f["member"] == member && f["action"] == "member.rename" {
		out = append(out, f["before"], f["after"])
	}
	for _, line := range strings.Split(f["items"], "\n") {
		if cols := strings.Split(line, "\t"); cols[0] == member && len(cols) > 7 {
			out = append(out, cols[7])
		}
	}
	keep := out[:0]
	for _, n := range out {
		if n != "" && n != member && n != Redacted {
			keep = append(keep, n)
		}
	}
	return keep
}

// Redact applies the rule to an entry's fields f, in place, and says
// whether it changed them. r.Cut is the caller's to apply (by entry id).
func Redact(f map[string]string, r redisstore.Redaction) bool {
	if r.Board != "" && f["board"] != r.Board {
		return false
	}
	needles := append([]string{r.Member}, r.Names...)
	about, changed := false, false
	if f["member"] == r.Member {
		f["member"], about, changed = r.Pseudonym, true, true
		if f["action"] == "member.rename" {
			for _, k := range []string{"before", "after"} {
				if v, ok := f[k]; ok {
					needles = append(needles, v)
					f[k] = Redacted
				}
			}
		}
	}
	for _, part := range []struct {
		field string
		clear int // the column of a display name (0-based; 0: none)
	}{{"items", 7}, {"teams", 0}, {"segments", 0}} {
		if f[part.field] == "" {
			continue
		}
		lines, hit := strings.Split(f[part.field], "\n"), false
		for i, line := range lines {
			cols := strings.Split(line, "\t")
			if cols[0] != r.Member {
				continue
			}
			cols[0] = r.Pseudonym
			if part.clear > 0 && len(cols) > part.clear && cols[part.clear] != "" {
				needles = append(needles, cols[part.clear])
				cols[part.clear] = ""
			}
			lines[i], hit = strings.Join(cols, "\t"), true
		}
		if hit {
			f[part.field], about, changed = strings.Join(lines, "\n"), true, true
		}
	}
	if reason := f["reason"]; reason != "" && reason != Redacted && mentions(reason, needles, about) {
		f["reason"], changed = Redacted, true
	}
	if about { // what the member's own entries say of it: a personal link's label names it
		for _, k := range []string{"before", "after"} {
			if v := f[k]; v != "" && v != Redacted && mentions(v, needles, true) {
				f[k], changed = Redacted, true
			}
		}
	}
	return changed
}

// mentions says whether text holds one of needles: anywhere, or as a whole
// word (not inside a run of ASCII letters, digits, '_' and '-').
func mentions(text string, needles []string, anywhere bool) bool {
	for _, n := range needles {
		if n == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], n)
			if i < 0 {
				break
			}
			i += from
			j := i + len(n)
			if anywhere || ((i == 0 || !wordByte(text[i-1])) && (j == len(text) || !wordByte(text[j]))) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Rewriter rewrites a stream without an erased member (redisstore.Store).
type Rewriter interface {
	RedactStream(ctx context.Context, key string, r redisstore.Redaction) (int, error)
}

// LastID stands after every entry id: a redaction's cut that takes every
// entry (the legacy streams' entries are all older than any erasure).
const LastID = "18446744073709551615-18446744073709551615"

// RedactLegacy rewrites the streams earlier versions wrote a board's
// entries to (the legacy board stream, the global one and its actors'),
// wherever one of them names the member, and says how many entries
// changed. The board's own streams are redisstore's (Rewriter does them).
// The global streams hold every board's entries; only the board's change.
func (l *Log) RedactLegacy(ctx context.Context, w Rewriter, r redisstore.Redaction) (int, error) {
	r.Cut = LastID
	legacy := LegacyStream(r.Board)
	first, actors, err := l.legacyMentions(ctx, legacy, r)
	if err != nil || first == "" {
		return 0, err
	}
	keys := []string{legacy, allKey}
	for a := range actors {
		keys = append(keys, actorKey+a)
	}
	n := 0
	var errs []error
	for _, k := range keys {
		c, err := w.RedactStream(ctx, k, r)
		n += c
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// LegacyStream is the stream earlier versions wrote a board's entries to;
// the board's listing still reads it.
func LegacyStream(boardID string) string { return legacyBoardKey + boardID }

// legacyMentions reads the legacy board stream for entries the redaction
// changes: the first one's id ("" none) and the actors of them all. The
// global streams held the same entries, no older ones.
func (l *Log) legacyMentions(ctx context.Context, key string, r redisstore.Redaction) (string, map[string]bool, error) {
	first, actors := "", map[string]bool{}
	err := scanStream(ctx, l.rdb, key, func(m redis.XMessage) {
		f := fieldsOf(m)
		if Redact(f, r) {
			if first == "" {
				first = m.ID
			}
			actors[f["actor"]] = true
		}
	})
	if err != nil {
		return "", nil, fmt.Errorf("audit: read %s: %w", key, err)
	}
	return first, actors, nil
}

// scanStream calls fn with every entry of a stream, oldest first, reading
// a chunk at a time.
func scanStream(ctx context.Context, rdb redis.UniversalClient, key string, fn func(redis.XMessage)) error {
	start := "-"
	for {
		msgs, err := rdb.XRangeN(ctx, key, start, "+", 256).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		for _, m := range msgs {
			fn(m)
		}
		if len(msgs) < 256 {
			return nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

// fieldsOf is a stream entry's fields as text.
func fieldsOf(m redis.XMessage) map[string]string {
	f := make(map[string]string, len(m.Values))
	for k, v := range m.Values {
		f[k] = fmt.Sprint(v)
	}
	return f
}
