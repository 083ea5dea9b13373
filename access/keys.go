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

// APIKey is a program's credential. The secret is shown once at creation;
// Redis keeps only its SHA-256.
type APIKey struct {
	ID    string
	Name  string
	Board string // "" means every board, and boards as code
	// ReadOnly keys read private boards (web/request/gate.go) and write
	// nothing.
	ReadOnly bool
	Created  time.Time
	LastUsed time.Time
}

// AllBoards reports whether the key may act on every board.
func (k APIKey) AllBoards() bool { return k.Board == "" }

// Allows reports whether the key may act on a board: read it (whatever its
// visibility) and, unless the key is read-only, write to it.
func (k APIKey) Allows(board string) bool { return k.Board == "" || k.Board == board }

// Keys manages API keys.
type Keys struct {
	rdb redis.UniversalClient
	now func() time.Time
	// verified keys, by the hash of their secret, for KeyCacheTTL: a request
	// with a known key costs no Redis round trip, and a revoked key stops
	// working on every replica within KeyCacheTTL.
	verified *shortCache[APIKey]
}

// KeyCacheTTL is how long a verified API key is trusted without asking Redis.
const KeyCacheTTL = time.Second

// NewKeys makes the key store.
func NewKeys(rdb redis.UniversalClient) *Keys {
	return &Keys{rdb: rdb, now: time.Now, verified: newShortCache[APIKey](KeyCacheTTL)}
}

// Create makes a key for one board (every board: "") that may write, or
// only read, and returns it with its secret, "pdm_<id>_<secret>".
func (k *Keys) Create(ctx context.Context, name, board string, readOnly bool) (APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 64 || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return APIKey{}, "", errors.Join(ErrInvalid, errors.New("name must be 1-64 printable characters"))
	}
	id := strings.ToLower(randomToken(6))
	id = strings.NewReplacer("-", "a", "_", "b").Replace(id)
	secret := "pdm_" + id + "_" + randomToken(32)
	key := APIKey{ID: id, Name: name, Board: board, ReadOnly: readOnly, Created: k.now().UTC()}
	scope := ""
	if readOnly {
		scope = "read"
	}
	// The key and the list of keys sit in different hash slots (a Cluster
	// cannot write both in one step), so the order makes a failure
	// harmless: listed first, then usable. List passes over a listed id with
	// no key; a usable key is never missing from the list, so it can always
	// be revoked.
	err := k.rdb.SAdd(ctx, apiKeysKey, id).Err()
	if err == nil {
		err = k.rdb.HSet(ctx, apiKeyKey+id, "name", name, "board", board, "scope", scope, "hash", sha(secret), "created", key.Created.Format(time.RFC3339)).Err()
	}
	if err != nil {
		return APIKey{}, "", fmt.Errorf("access: create API key: %w", err)
	}
	return key, secret, nil
}

// Authenticate finds the key of a secret and notes its use (at most once a
// minute, to keep reads cheap).
func (k *Keys) Authenticate(ctx context.Context, secret string) (APIKey, error) {
	parts := strings.SplitN(secret, "_", 3)
	if len(parts) != 3 || parts[0] != "pdm" || parts[1] == "" || len(secret) > 200 {
		return APIKey{}, ErrBadKey
	}
	hash := sha(secret)
	now := k.now()
	if key, ok := k.verified.get(hash, now); ok {
		return key, nil
	}
	m, err := k.rdb.HGetAll(ctx, apiKeyKey+parts[1]).Result()
	if err != nil {
		return APIKey{}, fmt.Errorf("access: read API key: %w", err)
	}
	if len(m) == 0 || subtle.ConstantTimeCompare([]byte(m["hash"]), []byte(hash)) != 1 {
		k.verified.forget(hash)
		return APIKey{}, ErrBadKey
	}
	key := keyOf(parts[1], m)
	if now.Sub(key.LastUsed) > time.Minute {
		k.rdb.HSet(ctx, apiKeyKey+key.ID, "last_used", now.UTC().Format(time.RFC3339))
		key.LastUsed = now
	}
	k.verified.put(hash, key, now)
	return key, nil
}

func keyOf(id string, m map[string]string) APIKey {
	k := APIKey{ID: id, Name: m["name"], Board: m["board"], ReadOnly: m["scope"] == "read"}
	k.Created, _ = time.Parse(time.RFC3339, m["created"])
	k.LastUsed, _ = time.Parse(time.RFC3339, m["last_used"])
	return k
}

// List returns every key, newest first.
func (k *Keys) List(ctx context.Context) ([]APIKey, error) {
	ids, err := k.rdb.SMembers(ctx, apiKeysKey).Result()
	if err != nil {
		return nil, fmt.Errorf("access: list API keys: %w", err)
	}
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err = k.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HGetAll(ctx, apiKeyKey+id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("access: list API keys: %w", err)
	}
	var out []APIKey
	for i, c := range cmds {
		if len(c.Val()) > 0 {
			out = append(out, keyOf(ids[i], c.Val()))
		}
	}
	slices.SortFunc(out, func(a, b APIKey) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Revoke deletes a key; its secret stops working at once.
func (k *Keys) Revoke(ctx context.Context, id string) (APIKey, error) {
	m, err := k.rdb.HGetAll(ctx, apiKeyKey+id).Result()
	if err != nil {
		return APIKey{}, fmt.Errorf("access: revoke API key: %w", err)
	}
	if len(m) == 0 {
		_ = k.rdb.SRem(ctx, apiKeysKey, id).Err() // a half-finished revocation's leftover
		return APIKey{}, fmt.Errorf("API key %q: %w", id, ErrNotFound)
	}
	// Unusable first, then unlisted (see Create). Once the key is gone the
	// revocation has happened: an id left in the list is passed over by
	// List and removed by the next Revoke of it.
	if err := k.rdb.Del(ctx, apiKeyKey+id).Err(); err != nil {
		return APIKey{}, fmt.Errorf("access: revoke API key: %w", err)
	}
	k.verified.forget(m["hash"]) // at once here; other replicas within KeyCacheTTL
	_ = k.rdb.SRem(ctx, apiKeysKey, id).Err()
	return keyOf(id, m), nil
}
