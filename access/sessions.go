package access

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sessions are server-side: the cookie holds a random token; Redis holds its
// SHA-256, the user and the creation time, expiring after Idle without use
// and at Absolute after login whatever happens.
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

// Session is a signed-in admin.
type Session struct {
	User    string
	Created time.Time
	token   string
}

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

// Create starts a session and returns its token.
func (s *Sessions) Create(ctx context.Context, user string) (string, error) {
	token := randomToken(32)
	key := sessionKey + sha(token)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "user", user, "created", strconv.FormatInt(s.now().UnixMilli(), 10))
		p.PExpire(ctx, key, s.Idle)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("access: create session: %w", err)
	}
	return token, nil
}

// Get returns the session of a token and extends its idle expiry.
func (s *Sessions) Get(ctx context.Context, token string) (Session, error) {
	if token == "" || len(token) > 128 {
		return Session{}, ErrNoSession
	}
	key := sessionKey + sha(token)
	m, err := s.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		return Session{}, fmt.Errorf("access: read session: %w", err)
	}
	ms, _ := strconv.ParseInt(m["created"], 10, 64)
	created := time.UnixMilli(ms)
	if m["user"] == "" || s.now().Sub(created) > s.Absolute {
		if len(m) > 0 {
			s.rdb.Del(ctx, key)
		}
		return Session{}, ErrNoSession
	}
	if err := s.rdb.PExpire(ctx, key, s.Idle).Err(); err != nil {
		return Session{}, fmt.Errorf("access: extend session: %w", err)
	}
	return Session{User: m["user"], Created: created, token: token}, nil
}

// Delete ends a session.
func (s *Sessions) Delete(ctx context.Context, token string) error {
	if err := s.rdb.Del(ctx, sessionKey+sha(token)).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("access: end session: %w", err)
	}
	return nil
}
