// Package access decides who may change things: admin accounts with bcrypt
// password hashes, server-side sessions, login throttling, API keys stored
// hashed, and rate limits. Everything lives in Redis under "podium:", apart
// from the leaderboard keys, so several instances share it.
package access

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
)

// Errors callers map to responses.
var (
	ErrBadCredentials = errors.New("wrong user name or password")
	ErrLocked         = errors.New("too many failed attempts")
	ErrExists         = errors.New("already exists")
	ErrNotFound       = errors.New("not found")
	ErrLastAdmin      = errors.New("the last admin cannot be removed")
	ErrInvalid        = errors.New("invalid")
	ErrNoSession      = errors.New("no valid session")
	ErrBadKey         = errors.New("invalid API key")
)

// Redis keys of this package.
const (
	prefix       = "podium:"
	adminsKey    = prefix + "admins" // hash: user -> bcrypt hash
	sessionKey   = prefix + "session:"
	apiKeyKey    = prefix + "apikey:" // hash per key
	apiKeysKey   = prefix + "apikeys" // set of key ids
	failUserKey  = prefix + "fail:user:"
	failAddrKey  = prefix + "fail:addr:"
	rateLimitKey = prefix + "rl:"
)

var userPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,31}$`)

// CheckUser refuses user names that are not 1-32 lower-case letters, digits,
// '.', '_' or '-'.
func CheckUser(u string) error {
	if !userPattern.MatchString(u) {
		return errors.Join(ErrInvalid, errors.New("user name must be 1-32 lower-case letters, digits, '.', '_' or '-'"))
	}
	return nil
}

// MinPassword is the shortest password accepted.
const MinPassword = 10

// CheckPassword refuses short or oversized passwords (bcrypt reads 72 bytes).
func CheckPassword(p string) error {
	switch {
	case len(p) < MinPassword:
		return errors.Join(ErrInvalid, errors.New("password must be at least 10 characters"))
	case len(p) > 72:
		return errors.Join(ErrInvalid, errors.New("password must be at most 72 bytes"))
	}
	return nil
}

func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS has no randomness: nothing is safe to do
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
