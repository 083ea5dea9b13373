package access

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Allow is who may read a private board by signing in with the
// organisation (OpenID Connect): anyone whose verified address is at one of
// Domains (exactly: "school.example" admits ann@school.example, not
// ann@mail.school.example), or whom the provider puts in one of Groups.
type Allow struct {
	Board   string
	Since   time.Time // the board's creation time: a board made again under the id starts with none
	Domains []string
	Groups  []string
}

// Admits reports whether the organisation's sign-in id may read the board.
func (a Allow) Admits(id Identity) bool {
	if id.Email == "" {
		return false
	}
	if at := strings.LastIndexByte(id.Email, '@'); at >= 0 && slices.Contains(a.Domains, strings.ToLower(id.Email[at+1:])) {
		return true
	}
	for _, g := range id.Groups {
		if slices.Contains(a.Groups, g) {
			return true
		}
	}
	return false
}

// Empty reports whether the list admits nobody.
func (a Allow) Empty() bool { return len(a.Domains) == 0 && len(a.Groups) == 0 }

// Bounds of an allow-list.
const (
	MaxAllowed = 20 // domains, and groups
	maxDomain  = 253
)

var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// ParseAllowed reads the console's fields: domains separated by commas,
// spaces or lines, groups (whose names may hold spaces) by commas or lines. Domains are lower-cased; a leading "@" is
// dropped. Each field names at most MaxAllowed.
func ParseAllowed(domains, groups string) (Allow, map[string]string) {
	errs := map[string]string{}
	var a Allow
	for _, d := range strings.FieldsFunc(strings.ToLower(domains), isSeparator) {
		d = strings.TrimPrefix(d, "@")
		if len(d) > maxDomain || !domainPattern.MatchString(d) {
			errs["domains"] = fmt.Sprintf("%q is not a domain name like school.example", LogSafe(d))
			break
		}
		if !slices.Contains(a.Domains, d) {
			a.Domains = append(a.Domains, d)
		}
	}
	for _, g := range strings.FieldsFunc(groups, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		if len(g) > maxGroupLen {
			errs["groups"] = fmt.Sprintf("a group name is at most %d bytes", maxGroupLen)
			break
		}
		if !slices.Contains(a.Groups, g) {
			a.Groups = append(a.Groups, g)
		}
	}
	if len(a.Domains) > MaxAllowed {
		errs["domains"] = fmt.Sprintf("at most %d domains", MaxAllowed)
	}
	if len(a.Groups) > MaxAllowed {
		errs["groups"] = fmt.Sprintf("at most %d groups", MaxAllowed)
	}
	return a, errs
}

func isSeparator(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }

// AllowLists keeps each board's allow-list in its own hash,
// podium:allow:<board> (since, domains, groups), read through a cache of
// half a second like share links.
type AllowLists struct {
	rdb   redis.UniversalClient
	cache *shortCache[Allow]
	now   func() time.Time
}

// NewAllowLists keeps allow-lists in rdb.
func NewAllowLists(rdb redis.UniversalClient) *AllowLists {
	return &AllowLists{rdb: rdb, cache: newShortCache[Allow](500 * time.Millisecond), now: time.Now}
}

func allowKey(boardID string) string { return prefix + "allow:" + boardID }

// Get is boardID's allow-list (empty when it has none).
func (l *AllowLists) Get(ctx context.Context, boardID string) (Allow, error) {
	now := l.now()
	if a, ok := l.cache.get(boardID, now); ok {
		return a, nil
	}
	m, err := l.rdb.HGetAll(ctx, allowKey(boardID)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return Allow{}, fmt.Errorf("access: allow-list of %q: %w", boardID, err)
	}
	a := Allow{Board: boardID}
	if ms, err := strconv.ParseInt(m["since"], 10, 64); err == nil {
		a.Since = time.UnixMilli(ms)
		a.Domains, a.Groups = lines(m["domains"]), lines(m["groups"])
	}
	l.cache.put(boardID, a, now)
	return a, nil
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Set replaces the allow-list of the board made at since; an empty one
// drops it.
func (l *AllowLists) Set(ctx context.Context, boardID string, since time.Time, a Allow) error {
	var err error
	if a.Empty() {
		err = l.rdb.Del(ctx, allowKey(boardID)).Err()
	} else {
		_, err = l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, allowKey(boardID))
			p.HSet(ctx, allowKey(boardID), "since", strconv.FormatInt(since.UnixMilli(), 10),
				"domains", strings.Join(a.Domains, "\n"), "groups", strings.Join(a.Groups, "\n"))
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("access: set the allow-list of %q: %w", boardID, err)
	}
	l.cache.forget(boardID)
	return nil
}

// Drop forgets a deleted board's allow-list.
func (l *AllowLists) Drop(ctx context.Context, boardID string) error {
	return l.Set(ctx, boardID, time.Time{}, Allow{})
}
