package access

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

// Share links: a board's owner hands out a link that lets whoever holds it
// read a private board (a class, a sales team). The token, "pvl_<id>_<secret>"
// with 256 random bits of secret, is shown once; Redis keeps its SHA-256.
const (
	linkKey  = prefix + "link:"  // hash per link
	linksKey = prefix + "links:" // set per board: its links' ids
)

// MaxLinksPerBoard bounds a board's share links.
const MaxLinksPerBoard = 100

// LinkCacheTTL is how long a verified link is trusted without asking Redis:
// a revoked link stops working on every replica within it.
const LinkCacheTTL = 500 * time.Millisecond

// ErrBadLink is the answer to a token that is not a live link: unknown,
// revoked, expired, or of a board made again since.
var ErrBadLink = errors.New("not a valid share link")

// Link is a share link of one board.
type Link struct {
	ID    string
	Board string
	// Since is when the board was made (its definition's created time): a
	// board deleted and made again under the id is another board, which its
	// old links do not open.
	Since    time.Time
	Name     string
	By       string // who made it
	Created  time.Time
	Expires  time.Time // zero: never
	LastUsed time.Time
	// Member is the one member a personal link is for ("" for a share
	// link): it reads the board as that member (personal.go).
	Member string
}

// Expired reports whether the link has expired at now.
func (l Link) Expired(now time.Time) bool { return !l.Expires.IsZero() && !now.Before(l.Expires) }

// Links manages share links.
type Links struct {
	rdb redis.UniversalClient
	now func() time.Time

	verified *shortCache[Link] // by the token's hash
}

// NewLinks makes the link store.
func NewLinks(rdb redis.UniversalClient) *Links {
	return &Links{rdb: rdb, now: time.Now, verified: newShortCache[Link](LinkCacheTTL)}
}

// CheckLinkName refuses a link name that is not 1-64 printable characters.
func CheckLinkName(name string) error {
	if name == "" || utf8.RuneCountInString(name) > 64 || !utf8.ValidString(name) ||
		strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.Join(ErrInvalid, errors.New("name must be 1-64 printable characters"))
	}
	return nil
}

// Create makes a share link named name of the board boardID made at since,
// by user, expiring at expires (zero: never), and returns it with its token.
func (l *Links) Create(ctx context.Context, boardID string, since time.Time, name, by string, expires time.Time) (Link, string, error) {
	name = strings.TrimSpace(name)
	if err := CheckLinkName(name); err != nil {
		return Link{}, "", err
	}
	now := l.now().UTC()
	if err := l.roomFor(ctx, linksKey, boardID, MaxLinksPerBoard, "share links", expires, now); err != nil {
		return Link{}, "", err
	}
	link := Link{Board: boardID, Since: since.UTC(), Name: name, By: by, Created: now, Expires: expires.UTC()}
	return l.store(ctx, link, linksKey, randomToken(32))
}

// roomFor refuses a new link of boardID, listed in index, that would
// expire before now or be one more than most of its kind.
func (l *Links) roomFor(ctx context.Context, index, boardID string, most int, kind string, expires, now time.Time) error {
	if !expires.IsZero() && !expires.After(now) {
		return errors.Join(ErrInvalid, errors.New("the expiry must be in the future"))
	}
	n, err := l.rdb.SCard(ctx, index+boardID).Result()
	if err != nil {
		return fmt.Errorf("access: create a link: %w", err)
	}
	if n >= int64(most) {
		return errors.Join(ErrInvalid, fmt.Errorf("a board has at most %d %s; revoke some first", most, kind))
	}
	return nil
}

// store keeps a new link, listed in index, with a token of secret, and
// returns it with its token.
func (l *Links) store(ctx context.Context, link Link, index, secret string) (Link, string, error) {
	link.ID = strings.NewReplacer("-", "a", "_", "b").Replace(strings.ToLower(randomToken(6)))
	token := "pvl_" + link.ID + "_" + secret
	exp := ""
	if !link.Expires.IsZero() {
		exp = link.Expires.Format(time.RFC3339)
	}
	fields := []any{"board", link.Board, "since", link.Since.Format(time.RFC3339Nano), "name", link.Name, "by", link.By, "hash", sha(token),
		"created", link.Created.Format(time.RFC3339Nano), "expires", exp}
	if link.Member != "" {
		fields = append(fields, "member", link.Member)
	}
	// Listed first, then usable (as API keys): a usable link is never
	// missing from its board's list, so it can always be revoked.
	err := l.rdb.SAdd(ctx, index+link.Board, link.ID).Err()
	if err == nil {
		err = l.rdb.HSet(ctx, linkKey+link.ID, fields...).Err()
	}
	if err != nil {
		return Link{}, "", fmt.Errorf("access: create share link: %w", err)
	}
	return link, token, nil
}

// Authenticate finds the live link of a token and notes its use (at most
// once a minute). Anything else is ErrBadLink, after the same work: an
// unknown id reads Redis as a known one does.
func (l *Links) Authenticate(ctx context.Context, token string) (Link, error) {
	parts := strings.SplitN(token, "_", 3)
	if len(token) > 200 || len(parts) != 3 || parts[0] != "pvl" || parts[1] == "" {
		return Link{}, ErrBadLink
	}
	hash := sha(token)
	now := l.now()
	if link, ok := l.verified.get(hash, now); ok && !link.Expired(now) {
		return link, nil
	}
	m, err := l.rdb.HGetAll(ctx, linkKey+parts[1]).Result()
	if err != nil {
		return Link{}, fmt.Errorf("access: read share link: %w", err)
	}
	stored := m["hash"]
	if stored == "" {
		stored = strings.Repeat("0", len(hash)) // compare anyway: the same work as a known id
	}
	if subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) != 1 || len(m) == 0 {
		l.verified.forget(hash)
		return Link{}, ErrBadLink
	}
	link := linkOf(parts[1], m)
	if link.Expired(now) {
		l.verified.forget(hash)
		return Link{}, ErrBadLink
	}
	if now.Sub(link.LastUsed) > time.Minute {
		l.rdb.HSet(ctx, linkKey+link.ID, "last_used", now.UTC().Format(time.RFC3339))
		link.LastUsed = now
	}
	l.verified.put(hash, link, now)
	return link, nil
}

func linkOf(id string, m map[string]string) Link {
	link := Link{ID: id, Board: m["board"], Name: m["name"], By: m["by"], Member: m["member"]}
	link.Created, _ = time.Parse(time.RFC3339Nano, m["created"])
	link.Since, _ = time.Parse(time.RFC3339Nano, m["since"])
	link.Expires, _ = time.Parse(time.RFC3339, m["expires"])
	link.LastUsed, _ = time.Parse(time.RFC3339, m["last_used"])
	return link
}

// List returns a board's links, newest first.
func (l *Links) List(ctx context.Context, boardID string) ([]Link, error) {
	ids, err := l.rdb.SMembers(ctx, linksKey+boardID).Result()
	if err != nil {
		return nil, fmt.Errorf("access: list share links: %w", err)
	}
	out := make([]Link, 0, len(ids))
	for _, id := range ids {
		m, err := l.rdb.HGetAll(ctx, linkKey+id).Result()
		if err != nil {
			return nil, fmt.Errorf("access: list share links: %w", err)
		}
		if len(m) == 0 || m["board"] != boardID {
			continue // listed but never made usable (see Create)
		}
		out = append(out, linkOf(id, m))
	}
	slices.SortFunc(out, func(a, b Link) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Revoke ends a board's link: it stops working on every replica within
// LinkCacheTTL.
func (l *Links) Revoke(ctx context.Context, boardID, id string) (Link, error) {
	m, err := l.rdb.HGetAll(ctx, linkKey+id).Result()
	if err != nil {
		return Link{}, fmt.Errorf("access: revoke share link: %w", err)
	}
	if len(m) == 0 || m["board"] != boardID {
		return Link{}, ErrNotFound
	}
	// Unusable first, then unlisted.
	if err := l.rdb.Del(ctx, linkKey+id).Err(); err != nil {
		return Link{}, fmt.Errorf("access: revoke share link: %w", err)
	}
	l.verified.forget(m["hash"])
	index := linksKey
	if m["member"] != "" {
		index = personalKey
	}
	if err := l.rdb.SRem(ctx, index+boardID, id).Err(); err != nil {
		return Link{}, fmt.Errorf("access: revoke share link: %w", err)
	}
	return linkOf(id, m), nil
}

// RevokeAll ends every link of a board (a deleted board's), and returns
// how many there were.
func (l *Links) RevokeAll(ctx context.Context, boardID string) (int, error) {
	n := 0
	for _, index := range []string{linksKey, personalKey} {
		ids, err := l.rdb.SMembers(ctx, index+boardID).Result()
		if err != nil {
			return n, fmt.Errorf("access: revoke share links: %w", err)
		}
		for _, id := range ids {
			if _, err := l.Revoke(ctx, boardID, id); err == nil {
				n++
			} else if !errors.Is(err, ErrNotFound) {
				return n, err
			}
		}
		if err := l.rdb.Del(ctx, index+boardID).Err(); err != nil {
			return n, fmt.Errorf("access: revoke share links: %w", err)
		}
	}
	return n, nil
}
