package access

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sessions are server-side: the cookie holds a random token; Redis holds its
// SHA-256 with the user, when and from where it began and when it was last
// seen, expiring after Idle without use and at Absolute after sign-in
// whatever happens. Each user's sessions are also listed in a set, so an admin
// can see where they are signed in and end the others.
type Sessions struct {
	rdb      redis.UniversalClient
	Idle     time.Duration
	Absolute time.Duration
	now      func() time.Time
}

// NewSessions uses 30 minutes idle and 12 hours absolute.
func NewSessions(rdb redis.UniversalClient) *Sessions {
	return &Sessions{rdb: rdb, Idle: 30 * time.Minute, Absolute: 12 * time.Hour, now: time.Now}
}

// Bounds of what a session records about its client: enough to recognise a
// browser, never a way to make Redis hold what a client sends unchecked.
const (
	maxUserAgent = 256
	maxAddr      = 64
)

// touchEvery is how often a session in use writes its last-seen time and
// pushes back its idle expiry: at most once a minute, not on every request.
func (s *Sessions) touchEvery() time.Duration { return min(time.Minute, s.Idle/10) }

// Session is a signed-in user: a console account, or a person the
// organisation's OpenID provider vouched for (Email, Groups), who may have
// no account (User is then "oidc:" + Email, a name no account can have).
type Session struct {
	User    string
	Created time.Time
	Email   string   // a verified address from the organisation's sign-in; "" for a password's
	Groups  []string // the groups the provider named, for boards' allow-lists
	token   string
}

// OrgPrefix starts the user of a session of someone the organisation
// vouched for who has no console account.
const OrgPrefix = "oidc:"

// Bounds of what an organisation's sign-in stores in a session: an address
// as long as any mail system takes, and enough groups for an allow-list.
const (
	MaxEmail      = 254
	maxGroups     = 100
	maxGroupLen   = 128
	maxSessionKey = len(OrgPrefix) + MaxEmail
)

// Identity is who an organisation's sign-in found.
type Identity struct {
	Email  string
	Groups []string
}

// ID is the session's opaque id as List reports it, so a page can mark the
// session it is being shown in.
func (s Session) ID() string { return sessionID(sha(s.token)) }

// CSRF is the token forms must echo: an HMAC of the session token, so it
// needs no storage and dies with the session.
func (s Session) CSRF() string {
	m := hmac.New(sha256.New, []byte(s.token))
	m.Write([]byte("podium-csrf"))
	return hex.EncodeToString(m.Sum(nil))
}

// CheckCSRF compares a submitted token in constant time.
func (s Session) CheckCSRF(token string) bool {
	return hmac.Equal([]byte(token), []byte(s.CSRF()))
}

// SessionInfo is one of a user's live sessions, for the admin to see.
type SessionInfo struct {
	ID        string // opaque: a hash of the key hash, so it neither signs in nor names the Redis key
	Created   time.Time
	LastSeen  time.Time // updated at most once a minute
	Addr      string    // client address at sign-in
	UserAgent string    // at sign-in, cut to 256 bytes
}

// sessionID derives a session's public id from its Redis key's hash, so the
// id shown on a page names the session without being a way to look it up.
func sessionID(keyHash string) string { return shortHash("podium-session-id:" + keyHash) }

func userSessionsKey(user string) string { return sessionsKey + user }

// Create starts a session for user, signed in from addr with userAgent, and
// returns its token.
func (s *Sessions) Create(ctx context.Context, user, addr, userAgent string) (string, error) {
	return s.CreateFor(ctx, user, Identity{}, addr, userAgent)
}

// CreateFor starts a session for user whom the organisation's sign-in
// vouched for as id (user is an account's name, or OrgPrefix + id.Email).
func (s *Sessions) CreateFor(ctx context.Context, user string, id Identity, addr, userAgent string) (string, error) {
	if user == "" || len(user) > maxSessionKey || len(id.Email) > MaxEmail {
		return "", errors.Join(ErrInvalid, fmt.Errorf("session for a user name of %d bytes", len(user)))
	}
	groups := make([]string, 0, min(len(id.Groups), maxGroups))
	for _, g := range id.Groups {
		if len(groups) < maxGroups && g != "" && len(g) <= maxGroupLen && !strings.Contains(g, "\n") {
			groups = append(groups, g)
		}
	}
	token := randomToken(32)
	h := sha(token)
	now := strconv.FormatInt(s.now().UnixMilli(), 10)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, sessionKey+h, "user", user, "created", now, "seen", now,
			"addr", clip(addr, maxAddr), "ua", clip(userAgent, maxUserAgent),
			"email", id.Email, "groups", strings.Join(groups, "\n"))
		p.PExpire(ctx, sessionKey+h, s.Idle)
		p.SAdd(ctx, userSessionsKey(user), h)
		// No session outlives Absolute, so neither need the index; List
		// drops the entries of sessions that ended sooner.
		p.PExpire(ctx, userSessionsKey(user), s.Absolute)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("access: create session: %w", err)
	}
	return token, nil
}

// Get returns the session of a token. A session in use has its idle expiry
// pushed back and its last-seen time written, at most once a minute (or a
// tenth of Idle), so a page view is a read.
func (s *Sessions) Get(ctx context.Context, token string) (Session, error) {
	if token == "" || len(token) > 128 {
		return Session{}, ErrNoSession
	}
	h := sha(token)
	key := sessionKey + h
	m, err := s.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		return Session{}, fmt.Errorf("access: read session: %w", err)
	}
	now := s.now()
	created, seen := msTime(m["created"]), msTime(m["seen"])
	if m["user"] == "" || now.Sub(created) > s.Absolute {
		if len(m) > 0 {
			_, _ = s.end(ctx, m["user"], h) // best effort: it has ended either way
		}
		return Session{}, ErrNoSession
	}
	if now.Sub(seen) >= s.touchEvery() {
		user := m["user"]
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, "seen", strconv.FormatInt(now.UnixMilli(), 10))
			p.PExpire(ctx, key, s.Idle)
			// Sessions from before the index existed join it here.
			p.SAdd(ctx, userSessionsKey(user), h)
			p.PExpire(ctx, userSessionsKey(user), s.Absolute)
			return nil
		})
		if err != nil {
			return Session{}, fmt.Errorf("access: extend session: %w", err)
		}
	}
	var groups []string
	if m["groups"] != "" {
		groups = strings.Split(m["groups"], "\n")
	}
	return Session{User: m["user"], Created: created, Email: m["email"], Groups: groups, token: token}, nil
}

func msTime(v string) time.Time {
	ms, _ := strconv.ParseInt(v, 10, 64)
	return time.UnixMilli(ms)
}

// Delete ends a session.
func (s *Sessions) Delete(ctx context.Context, token string) error {
	if token == "" || len(token) > 128 {
		return nil
	}
	h := sha(token)
	user, err := s.rdb.HGet(ctx, sessionKey+h, "user").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("access: end session: %w", err)
	}
	if _, err := s.end(ctx, user, h); err != nil {
		return fmt.Errorf("access: end session: %w", err)
	}
	return nil
}

// end deletes sessions by key hash and takes them out of user's index; it
// reports how many were still live.
func (s *Sessions) end(ctx context.Context, user string, hashes ...string) (int, error) {
	if len(hashes) == 0 {
		return 0, nil
	}
	dels := make([]*redis.IntCmd, len(hashes))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, h := range hashes {
			dels[i] = p.Del(ctx, sessionKey+h)
		}
		if user != "" {
			p.SRem(ctx, userSessionsKey(user), toAny(hashes)...)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range dels {
		n += int(d.Val())
	}
	return n, nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// live reads user's sessions from the index, dropping entries whose session
// has ended (expired, past Absolute, or not this user's), and returns each
// live one with its key hash.
func (s *Sessions) live(ctx context.Context, user string) ([]SessionInfo, []string, error) {
	if user == "" || len(user) > maxSessionKey {
		return nil, nil, nil
	}
	hashes, err := s.rdb.SMembers(ctx, userSessionsKey(user)).Result()
	if err != nil {
		return nil, nil, err
	}
	cmds := make([]*redis.MapStringStringCmd, len(hashes))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, h := range hashes {
			cmds[i] = p.HGetAll(ctx, sessionKey+h)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	var infos []SessionInfo
	var live, dead []string
	for i, c := range cmds {
		m := c.Val()
		created := msTime(m["created"])
		if m["user"] != user || now.Sub(created) > s.Absolute {
			dead = append(dead, hashes[i])
			continue
		}
		live = append(live, hashes[i])
		infos = append(infos, SessionInfo{ID: sessionID(hashes[i]), Created: created, LastSeen: msTime(m["seen"]), Addr: m["addr"], UserAgent: m["ua"]})
	}
	if len(dead) > 0 {
		// Only the index entries: a hash that belongs to someone else is theirs to keep.
		if err := s.rdb.SRem(ctx, userSessionsKey(user), toAny(dead)...).Err(); err != nil {
			return nil, nil, err
		}
	}
	return infos, live, nil
}

// List returns user's live sessions, newest first.
func (s *Sessions) List(ctx context.Context, user string) ([]SessionInfo, error) {
	infos, _, err := s.live(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("access: list sessions of %q: %w", LogSafe(user), err)
	}
	slices.SortFunc(infos, func(a, b SessionInfo) int { return b.Created.Compare(a.Created) })
	return infos, nil
}

// DeleteOthers ends every session of user but the one of keepToken (all of
// them when keepToken is ""), e.g. after signing in on a new device or
// changing a password, and says how many it ended.
func (s *Sessions) DeleteOthers(ctx context.Context, user, keepToken string) (int, error) {
	_, hashes, err := s.live(ctx, user)
	if err != nil {
		return 0, fmt.Errorf("access: end sessions of %q: %w", LogSafe(user), err)
	}
	keep := ""
	if keepToken != "" {
		keep = sha(keepToken)
	}
	hashes = slices.DeleteFunc(hashes, func(h string) bool { return h == keep })
	n, err := s.end(ctx, user, hashes...)
	if err != nil {
		return 0, fmt.Errorf("access: end sessions of %q: %w", LogSafe(user), err)
	}
	return n, nil
}

// DeleteByID ends one of user's sessions by the id List gave; ErrNotFound if
// user has no live session with that id.
func (s *Sessions) DeleteByID(ctx context.Context, user, id string) error {
	infos, hashes, err := s.live(ctx, user)
	if err != nil {
		return fmt.Errorf("access: end session of %q: %w", LogSafe(user), err)
	}
	for i, info := range infos {
		if id != "" && info.ID == id {
			if _, err := s.end(ctx, user, hashes[i]); err != nil {
				return fmt.Errorf("access: end session of %q: %w", LogSafe(user), err)
			}
			return nil
		}
	}
	return fmt.Errorf("session %q of %q: %w", LogSafe(id), LogSafe(user), ErrNotFound)
}
