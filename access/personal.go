package access

import (
	"context"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

// Personal links: a link for one member of a board (a pupil of a class),
// which shows them their own rank, score, around-me and history, and of the
// others what the board's privacy mode shows the shared surfaces. They are
// share links with a Member: the same token form, kept hashed, expiring and
// revoked alike, listed apart (so a class's links do not crowd out the
// board's share links) and bounded apart.
const personalKey = prefix + "plinks:" // set per board: its personal links' ids

// MaxPersonalLinksPerBoard bounds a board's personal links: a link for every
// member of a large class or club.
const MaxPersonalLinksPerBoard = 1000

// personalSecret is a personal link's secret: 128 random bits in 26
// lower-case letters and digits, short enough to type from a printed card.
func personalSecret() string {
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(randomBytes(16)))
}

// CreatePersonal makes a personal link of member on the board boardID made
// at since, named name (how the console lists it: the member's name), by
// user, expiring at expires (zero: never), and returns it with its token.
func (l *Links) CreatePersonal(ctx context.Context, boardID string, since time.Time, member, name, by string, expires time.Time) (Link, string, error) {
	if member == "" || len(member) > 128 {
		return Link{}, "", errors.Join(ErrInvalid, errors.New("a personal link is for one member id of 1-128 bytes"))
	}
	name = linkNameOf(name, member)
	now := l.now().UTC()
	if err := l.roomFor(ctx, personalKey, boardID, MaxPersonalLinksPerBoard, "personal links", expires, now); err != nil {
		return Link{}, "", err
	}
	link := Link{Board: boardID, Since: since.UTC(), Name: name, By: by, Created: now, Expires: expires.UTC(), Member: member}
	return l.store(ctx, link, personalKey, personalSecret())
}

// linkNameOf is a personal link's name: the member's name, or its id,
// made to fit CheckLinkName.
func linkNameOf(name, member string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		name = member
	}
	if utf8.RuneCountInString(name) > 64 {
		name = string([]rune(name)[:63]) + "…"
	}
	if CheckLinkName(name) != nil {
		return "personal link"
	}
	return name
}

// ListPersonal returns a board's personal links, by name.
func (l *Links) ListPersonal(ctx context.Context, boardID string) ([]Link, error) {
	ids, err := l.rdb.SMembers(ctx, personalKey+boardID).Result()
	if err != nil {
		return nil, fmt.Errorf("access: list personal links: %w", err)
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	if _, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HGetAll(ctx, linkKey+id)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("access: list personal links: %w", err)
	}
	out := make([]Link, 0, len(ids))
	for i, c := range cmds {
		m := c.Val()
		if len(m) == 0 || m["board"] != boardID || m["member"] == "" {
			continue // listed but never made usable (see store)
		}
		out = append(out, linkOf(ids[i], m))
	}
	slices.SortFunc(out, func(a, b Link) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return b.Created.Compare(a.Created)
	})
	return out, nil
}
