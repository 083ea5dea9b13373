package access

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Signed embeds: a site shows a private board's widget by signing the
// widget's URL on its own server with the board's embed secret, the way
// Metabase's signed embedding works:
//
//	/embed/<board>?period=week&limit=10&exp=<unix seconds>&sig=<hex HMAC-SHA256>
//
// The HMAC is of the URL's path and query up to "&sig=" (the path, "?", and
// every parameter before sig, exactly as sent), keyed with the secret; exp
// is required and the URL works until then. Rotating the secret ends every
// signed URL and every live socket opened through one.
const embedKey = prefix + "embed:" // string per board: hex of its 32-byte embed secret

// EmbedCacheTTL is how long a board's secret is trusted without asking
// Redis: a rotation takes effect on every replica within it.
const EmbedCacheTTL = 500 * time.Millisecond

// MaxEmbedQuery bounds the signed part of an embed URL.
const MaxEmbedQuery = 2048

// Embeds keeps the boards' embed secrets.
type Embeds struct {
	rdb redis.UniversalClient
	now func() time.Time

	cache *shortCache[[]byte] // by board: its secret, nil when it has none
}

// NewEmbeds makes the store of embed secrets.
func NewEmbeds(rdb redis.UniversalClient) *Embeds {
	return &Embeds{rdb: rdb, now: time.Now, cache: newShortCache[[]byte](EmbedCacheTTL)}
}

// Rotate makes a new embed secret for a board, ending the old one, and
// returns it (hex) to show once.
func (e *Embeds) Rotate(ctx context.Context, boardID string) (string, error) {
	secret := hex.EncodeToString(randomBytes(32))
	if err := e.rdb.Set(ctx, embedKey+boardID, secret, 0).Err(); err != nil {
		return "", fmt.Errorf("access: embed secret: %w", err)
	}
	e.forget(boardID)
	return secret, nil
}

// Drop ends a board's embed secret (signed embeds off, or the board gone).
func (e *Embeds) Drop(ctx context.Context, boardID string) error {
	if err := e.rdb.Del(ctx, embedKey+boardID).Err(); err != nil {
		return fmt.Errorf("access: embed secret: %w", err)
	}
	e.forget(boardID)
	return nil
}

// Has reports whether a board has an embed secret.
func (e *Embeds) Has(ctx context.Context, boardID string) (bool, error) {
	s, err := e.secret(ctx, boardID)
	return s != nil, err
}

// Fingerprint names a board's current secret without giving it away ("":
// none): a live socket opened through a signed URL carries it, and ends
// when it no longer matches.
func (e *Embeds) Fingerprint(ctx context.Context, boardID string) (string, error) {
	s, err := e.secret(ctx, boardID)
	if err != nil || s == nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte("podium-embed-fingerprint:"), s...))
	return hex.EncodeToString(sum[:8]), nil
}

func (e *Embeds) forget(boardID string) { e.cache.forget(boardID) }

func (e *Embeds) secret(ctx context.Context, boardID string) ([]byte, error) {
	now := e.now()
	if s, ok := e.cache.get(boardID, now); ok {
		return s, nil
	}
	v, err := e.rdb.Get(ctx, embedKey+boardID).Result()
	if errors.Is(err, redis.Nil) {
		v, err = "", nil
	}
	if err != nil {
		return nil, fmt.Errorf("access: embed secret: %w", err)
	}
	var s []byte
	if v != "" {
		if s, err = hex.DecodeString(v); err != nil || len(s) < 32 {
			return nil, errors.New("access: the embed secret of board " + boardID + " in Redis is damaged; rotate it in the console")
		}
	}
	e.cache.put(boardID, s, now)
	return s, nil
}

// Verify checks a signed embed URL of a board, given as its escaped path
// and raw query, and returns when it expires. The query must end with
// sig=<64 hex digits> and hold exp=<unix seconds> before it.
func (e *Embeds) Verify(ctx context.Context, boardID, path, rawQuery string) (time.Time, bool) {
	signed, sig, ok := cutSig(rawQuery)
	if !ok || len(signed) > MaxEmbedQuery {
		return time.Time{}, false
	}
	q, err := url.ParseQuery(signed)
	if err != nil || len(q["exp"]) != 1 {
		return time.Time{}, false
	}
	exp, err := strconv.ParseInt(q.Get("exp"), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	secret, err := e.secret(ctx, boardID)
	if err != nil || secret == nil {
		_ = SignEmbed(strings.Repeat("0", 64), path, signed) // the same work as a board with a secret
		return time.Time{}, false
	}
	want, _ := hex.DecodeString(SignEmbed(hex.EncodeToString(secret), path, signed))
	got, err := hex.DecodeString(sig)
	if err != nil || !hmac.Equal(got, want) {
		return time.Time{}, false
	}
	until := time.Unix(exp, 0)
	if !e.now().Before(until) {
		return time.Time{}, false
	}
	return until, true
}

// cutSig splits a raw query into the part that is signed and the signature,
// which must be its last parameter.
func cutSig(raw string) (signed, sig string, ok bool) {
	i := strings.LastIndex(raw, "sig=")
	if i < 0 || (i > 0 && raw[i-1] != '&') {
		return "", "", false
	}
	sig = raw[i+len("sig="):]
	if len(sig) != 64 || strings.ContainsAny(sig, "&=") {
		return "", "", false
	}
	return strings.TrimSuffix(raw[:i], "&"), sig, true
}

// SignEmbed is what a site computes on its own server: the hex HMAC-SHA256,
// keyed with the board's secret (hex), of path + "?" + query (every
// parameter of the widget's URL, exp among them, as they will be sent).
// The URL to embed is path + "?" + query + "&sig=" + the result.
func SignEmbed(secretHex, path, query string) string {
	key, _ := hex.DecodeString(secretHex)
	h := hmac.New(sha256.New, key)
	h.Write([]byte(path + "?" + query))
	return hex.EncodeToString(h.Sum(nil))
}
