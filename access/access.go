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
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Errors callers map to responses.
var (
	ErrBadCredentials = errors.New("wrong user name or password")
	ErrLocked         = errors.New("too many failed attempts")
	ErrExists         = errors.New("already exists")
	ErrNotFound       = errors.New("not found")
	ErrLastAdmin      = errors.New("the last site admin cannot be removed or made a board user")
	ErrInvalid        = errors.New("invalid")
	ErrNoSession      = errors.New("no valid session")
	ErrBadKey         = errors.New("invalid API key")
)

// Redis keys of this package. On a Redis Cluster they spread over slots, and
// no script or transaction spans two of them: writes to several keys are
// ordered so that a failure half-way is harmless (see Keys.Create), and the
// one script that touches several, the count of a failed sign-in, takes keys
// that share the account's hash tag, podium:login:{<user hash>}:... (the
// per-address count, podium:login:addr:<hash>, is written on its own).
const (
	prefix      = "podium:"
	adminsKey   = prefix + "admins"    // hash: user -> bcrypt hash (see Accounts)
	rolesKey    = prefix + "roles:"    // hash per user: board -> role (see Roles)
	sessionKey  = prefix + "session:"  // hash per session, by the token's SHA-256
	sessionsKey = prefix + "sessions:" // set per user: the key hashes of their sessions
	apiKeyKey   = prefix + "apikey:"   // hash per key
	apiKeysKey  = prefix + "apikeys"   // set of key ids
	loginKey    = prefix + "login:"    // sign-in failures, by hashed user and address
)

// MaxUserLen bounds a user name wherever one arrives from outside. No
// account can have a longer name (CheckUser allows 64 characters), so a longer
// one is refused before it reaches Redis, bcrypt or a log line: a sign-in form
// posted with a 5 MB name must not cost 5 MB anywhere.
const MaxUserLen = 64

var userPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._@+-]{0,63}$`)

// CheckUser refuses user names that are not 1-64 lower-case letters, digits,
// '.', '_', '-', '+' or '@'. An email address is a name: the account a
// person signing in with their organisation (OIDC) is given.
func CheckUser(u string) error {
	if !userPattern.MatchString(u) {
		return errors.Join(ErrInvalid, errors.New("user name must be 1-64 lower-case letters, digits, '.', '_', '-', '+' or '@'"))
	}
	return nil
}

// MinPassword is the shortest password accepted.
const MinPassword = 10

// MaxPassword is bcrypt's input limit in bytes.
const MaxPassword = 72

// CheckPassword refuses short or oversized passwords. bcrypt reads at most 72
// bytes and refuses longer input; rather than truncate silently (two
// passwords sharing 72 bytes would both work) or pre-hash (a format other
// tools would not read), a longer password is refused with a clear error when
// it is set. Verify treats one as wrong without hashing it.
func CheckPassword(p string) error {
	switch {
	case len(p) < MinPassword:
		return errors.Join(ErrInvalid, fmt.Errorf("password must be at least %d characters", MinPassword))
	case len(p) > MaxPassword:
		return errors.Join(ErrInvalid, fmt.Errorf("password must be at most %d bytes (bcrypt reads no more); this one is %d", MaxPassword, len(p)))
	}
	return nil
}

// LogSafe bounds a user name as typed (or any outside string) for a log
// attribute: at most MaxUserLen bytes, cut at a character boundary, with the
// full length noted when it was cut.
func LogSafe(s string) string {
	if len(s) <= MaxUserLen {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", clip(s, MaxUserLen), len(s))
}

// clip cuts s to at most n bytes without splitting a character, and replaces
// invalid UTF-8, so what is stored or shown is always text.
func clip(s string, n int) string {
	if len(s) > n {
		s = s[:n]
		for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
			if utf8.RuneStart(s[i]) {
				if !utf8.FullRuneInString(s[i:]) {
					s = s[:i] // a character cut in half
				}
				break
			}
		}
	}
	return strings.ToValidUTF8(s, "\ufffd")
}

func randomToken(n int) string { return base64.RawURLEncoding.EncodeToString(randomBytes(n)) }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS has no randomness: nothing is safe to do
	}
	return b
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// shortHash names an outside string (a user name, an address) in a Redis key
// in 32 characters, whatever its length. 128 bits keep collisions out of
// reach.
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}
