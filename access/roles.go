package access

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Role is what a board user may do on one board. Each role may do what the
// ones below it may.
type Role int

// The roles, weakest first.
const (
	NoRole      Role = iota
	Viewer           // reads the board, private or not, in the console and on its pages
	Scorekeeper      // scores, names, teams, resets, freeze and reveal
	Owner            // the definition, visibility, sharing, roles, webhooks, deletion
)

// Roles lists the roles a user may be given, weakest first.
var Roles = []Role{Viewer, Scorekeeper, Owner}

func (r Role) String() string {
	switch r {
	case Viewer:
		return "viewer"
	case Scorekeeper:
		return "scorekeeper"
	case Owner:
		return "owner"
	}
	return "none"
}

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if s == r.String() {
			return r, nil
		}
	}
	return NoRole, errors.Join(ErrInvalid, fmt.Errorf("role must be viewer, scorekeeper or owner, not %q", LogSafe(s)))
}

// Grant is a role on a board, given to a user while the board of Since's
// creation time existed: a board deleted and made again under its id does
// not inherit the roles of the one before.
type Grant struct {
	User  string
	Board string
	Role  Role
	Since time.Time // the board's creation time
}

// On is the grant's role on the board of its id made at created: NoRole
// when it was given on an earlier board of the id.
func (g Grant) On(created time.Time) Role {
	if g.Since.UnixMilli() != created.UnixMilli() {
		return NoRole
	}
	return g.Role
}

// Grants keeps board users' roles, one hash per user (podium:roles:<user>,
// board -> "<role> <board creation ms>"), so a user's boards are one read.
// Who holds a role on a board is a read of every user's hash, pipelined:
// console users number in the tens or hundreds, not the millions.
type Grants struct {
	rdb   redis.UniversalClient
	cache *shortCache[Grant] // by user and board; the zero Grant for none
	now   func() time.Time
}

// NewGrants keeps roles in rdb. A role read is cached for half a second, so
// a page and its live socket's guard cost no round trip each, and a role
// taken away on another replica stops counting within that.
func NewGrants(rdb redis.UniversalClient) *Grants {
	return &Grants{rdb: rdb, cache: newShortCache[Grant](500 * time.Millisecond), now: time.Now}
}

func userRolesKey(user string) string { return rolesKey + user }

func (g *Grants) cacheKey(user, boardID string) string { return user + "\x00" + boardID }

// Set gives user role r on board boardID, made at since (the board's
// Created), replacing any role they had there.
func (g *Grants) Set(ctx context.Context, user, boardID string, r Role, since time.Time) error {
	if r == NoRole {
		_, err := g.Remove(ctx, user, boardID)
		return err
	}
	v := r.String() + " " + strconv.FormatInt(since.UnixMilli(), 10)
	if err := g.rdb.HSet(ctx, userRolesKey(user), boardID, v).Err(); err != nil {
		return fmt.Errorf("access: give %q the role %s on %q: %w", user, r, boardID, err)
	}
	g.cache.forget(g.cacheKey(user, boardID))
	return nil
}

// Remove takes user's role on boardID away; false if they had none.
func (g *Grants) Remove(ctx context.Context, user, boardID string) (bool, error) {
	n, err := g.rdb.HDel(ctx, userRolesKey(user), boardID).Result()
	if err != nil {
		return false, fmt.Errorf("access: take %q's role on %q away: %w", user, boardID, err)
	}
	g.cache.forget(g.cacheKey(user, boardID))
	return n > 0, nil
}

func parseGrant(user, boardID, v string) (Grant, bool) {
	name, ms, ok := strings.Cut(v, " ")
	r, err := ParseRole(name)
	n, err2 := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || err2 != nil {
		return Grant{}, false // unreadable: no role, never a guess
	}
	return Grant{User: user, Board: boardID, Role: r, Since: time.UnixMilli(n)}, true
}

// On is user's role on the board boardID created at created (NoRole for a
// role given on an earlier board of that id).
func (g *Grants) On(ctx context.Context, user, boardID string, created time.Time) (Role, error) {
	if user == "" || len(user) > MaxUserLen {
		return NoRole, nil
	}
	key, now := g.cacheKey(user, boardID), g.now()
	gr, ok := g.cache.get(key, now)
	if !ok {
		v, err := g.rdb.HGet(ctx, userRolesKey(user), boardID).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return NoRole, fmt.Errorf("access: %q's role on %q: %w", user, boardID, err)
		}
		gr, _ = parseGrant(user, boardID, v)
		g.cache.put(key, gr, now)
	}
	return gr.On(created), nil
}

// Of is every role user holds, by board id, including roles on boards since
// deleted or made again (callers compare Since with the board's Created).
func (g *Grants) Of(ctx context.Context, user string) (map[string]Grant, error) {
	m, err := g.rdb.HGetAll(ctx, userRolesKey(user)).Result()
	if err != nil {
		return nil, fmt.Errorf("access: roles of %q: %w", user, err)
	}
	out := make(map[string]Grant, len(m))
	for b, v := range m {
		if gr, ok := parseGrant(user, b, v); ok {
			out[b] = gr
		}
	}
	return out, nil
}

// Holders is who among users holds a role on boardID, in users' order.
func (g *Grants) Holders(ctx context.Context, boardID string, users []string) ([]Grant, error) {
	cmds := make([]*redis.StringCmd, len(users))
	_, err := g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, u := range users {
			cmds[i] = p.HGet(ctx, userRolesKey(u), boardID)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("access: roles on %q: %w", boardID, err)
	}
	var out []Grant
	for i, c := range cmds {
		if gr, ok := parseGrant(users[i], boardID, c.Val()); ok {
			out = append(out, gr)
		}
	}
	return out, nil
}

// DropBoard takes every role on boardID away from users (a deleted board).
func (g *Grants) DropBoard(ctx context.Context, boardID string, users []string) error {
	_, err := g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, u := range users {
			p.HDel(ctx, userRolesKey(u), boardID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("access: drop roles on %q: %w", boardID, err)
	}
	for _, u := range users {
		g.cache.forget(g.cacheKey(u, boardID))
	}
	return nil
}

// DropUser takes every role away from user (a removed account).
func (g *Grants) DropUser(ctx context.Context, user string) error {
	if err := g.rdb.Del(ctx, userRolesKey(user)).Err(); err != nil {
		return fmt.Errorf("access: drop roles of %q: %w", user, err)
	}
	return nil
}
