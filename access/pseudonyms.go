package access

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

const pseudonymKey = prefix + "pseudonym-key" // string: hex of 32 random bytes, made once

// PseudonymKey is the key boards that hide names make their members'
// stand-ins and pseudonyms with (rows.Masker): made once in Redis, so every
// replica names a member alike, and kept there, so a member's pseudonym
// stays the same across restarts. Deleting it gives every member of every
// board a new one.
func PseudonymKey(ctx context.Context, rdb redis.UniversalClient) ([]byte, error) {
	if err := rdb.SetNX(ctx, pseudonymKey, hex.EncodeToString(randomBytes(32)), 0).Err(); err != nil {
		return nil, fmt.Errorf("access: pseudonym key: %w", err)
	}
	v, err := rdb.Get(ctx, pseudonymKey).Result()
	if err != nil {
		return nil, fmt.Errorf("access: pseudonym key: %w", err)
	}
	key, err := hex.DecodeString(v)
	if err != nil || len(key) < 32 {
		return nil, errors.New("access: the pseudonym key in Redis is damaged; delete " + pseudonymKey + " to make a new one (every pseudonym changes)")
	}
	return key, nil
}
