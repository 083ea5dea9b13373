package access

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const signingKey = prefix + "signing-key" // string: hex of 32 random bytes, made once

// Signer signs small values (a known device, a one-time message) so that a
// cookie the server set cannot be made or changed by anyone else. Its key is
// made once in Redis, so every replica signs and checks alike.
type Signer struct {
	rdb redis.UniversalClient
	now func() time.Time
	mu  sync.Mutex
	key []byte
}

// NewSigner makes a signer on rdb.
func NewSigner(rdb redis.UniversalClient) *Signer { return &Signer{rdb: rdb, now: time.Now} }

func (s *Signer) secret(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		return s.key, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if err := s.rdb.SetNX(ctx, signingKey, hex.EncodeToString(fresh), 0).Err(); err != nil {
		return nil, fmt.Errorf("access: signing key: %w", err)
	}
	v, err := s.rdb.Get(ctx, signingKey).Result()
	if err != nil {
		return nil, fmt.Errorf("access: signing key: %w", err)
	}
	key, err := hex.DecodeString(v)
	if err != nil || len(key) < 32 {
		return nil, errors.New("access: the signing key in Redis is damaged; delete " + signingKey + " to make a new one")
	}
	s.key = key
	return key, nil
}

func mac(key []byte, purpose, body string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(purpose + "\x00" + body))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// Sign makes a token carrying value for purpose, valid for ttl.
func (s *Signer) Sign(ctx context.Context, purpose, value string, ttl time.Duration) (string, error) {
	key, err := s.secret(ctx)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString([]byte(value)) + "." + strconv.FormatInt(s.now().Add(ttl).Unix(), 10)
	return body + "." + mac(key, purpose, body), nil
}

// Verify returns the value of a token made by Sign for purpose, if it is
// genuine and not expired.
func (s *Signer) Verify(ctx context.Context, purpose, token string) (string, bool) {
	if len(token) > 4096 {
		return "", false
	}
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return "", false
	}
	body, sig := token[:i], token[i+1:]
	key, err := s.secret(ctx)
	if err != nil || !hmac.Equal([]byte(sig), []byte(mac(key, purpose, body))) {
		return "", false
	}
	enc, exp, ok := strings.Cut(body, ".")
	until, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil || s.now().Unix() > until {
		return "", false
	}
	v, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", false
	}
	return string(v), true
}
