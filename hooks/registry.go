package hooks

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

var (
	//go:embed lua/create.lua
	createLua string
	//go:embed lua/test.lua
	testLua string

	createScript = redis.NewScript(createLua)
	testScript   = redis.NewScript(testLua)
)

// Registry keeps the boards' webhook registrations and their delivery logs.
type Registry struct {
	rdb          redis.UniversalClient
	now          func() time.Time
	allowPrivate bool
}

// RegistryOption configures a Registry.
type RegistryOption func(*Registry)

// AllowPrivate lets hooks be registered to IP addresses and names that are
// plainly not public (loopback, private networks, localhost), for servers
// whose receivers live in their own network; the runner's client needs
// Options.AllowPrivate to deliver to them (HOOKS_ALLOW_PRIVATE sets both).
func AllowPrivate(on bool) RegistryOption { return func(r *Registry) { r.allowPrivate = on } }

// NewRegistry is a registry on rdb; now is the clock (nil: time.Now).
func NewRegistry(rdb redis.UniversalClient, now func() time.Time, opts ...RegistryOption) *Registry {
	if now == nil {
		now = time.Now
	}
	r := &Registry{rdb: rdb, now: now}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Create registers a hook on board b. The answer holds the secret: the only
// time it leaves the registry (Rotate makes a new one).
func (r *Registry) Create(ctx context.Context, b *board.Board, in Input, by string) (Hook, error) {
	in, err := in.Check(b, r.allowPrivate)
	if err != nil {
		return Hook{}, err
	}
	h := Hook{ID: newID(), URL: in.URL, Events: in.Events, Periods: in.Periods, Top: in.Top,
		Secret: newSecret(), Created: r.now().UnixMilli(), Enabled: true, By: by, BoardCreated: b.Created.UnixMilli()}
	if h.Periods == nil {
		h.Periods = []board.Kind{}
	}
	js, err := json.Marshal(h)
	if err != nil {
		return Hook{}, err
	}
	n, err := createScript.Run(ctx, r.rdb, []string{hooksKey(b.ID), queueKey(b.ID), redisstore.DefKey(b.ID)}, h.ID, js, MaxHooks, group).Int()
	if err != nil {
		return Hook{}, fmt.Errorf("hooks: create on %q: %w", b.ID, err)
	}
	switch n {
	case 0:
		return Hook{}, ErrTooMany
	case -1:
		return Hook{}, fmt.Errorf("hooks: create on %q: %w", b.ID, board.ErrNotFound)
	}
	return h, r.index(ctx, b.ID)
}

// index lists the board for the runner. It comes after the hook is
// written, and the runner unlists a board only while it has no hooks and
// checks again after (unindex), so a new hook is never left unvisited.
func (r *Registry) index(ctx context.Context, boardID string) error {
	if err := r.rdb.SAdd(ctx, hookedKey, boardID).Err(); err != nil {
		return fmt.Errorf("hooks: index %q: %w", boardID, err)
	}
	return nil
}

// unindex stops the runner visiting a board without hooks.
func (r *Registry) unindex(ctx context.Context, boardID string) error {
	if err := r.rdb.SRem(ctx, hookedKey, boardID).Err(); err != nil {
		return fmt.Errorf("hooks: unindex %q: %w", boardID, err)
	}
	n, err := r.rdb.HLen(ctx, hooksKey(boardID)).Result()
	if err != nil {
		return fmt.Errorf("hooks: unindex %q: %w", boardID, err)
	}
	if n > 0 { // a hook was made meanwhile
		return r.index(ctx, boardID)
	}
	return nil
}

// drop deletes every hook of a deleted board, with their state, queue and logs.
func (r *Registry) drop(ctx context.Context, boardID string, hs []Hook) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, hooksKey(boardID), stateKey(boardID), queueKey(boardID))
		for _, h := range hs {
			p.Del(ctx, logKey(boardID, h.ID))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("hooks: drop the hooks of deleted board %q: %w", boardID, err)
	}
	return nil
}

// List is a board's hooks, oldest first.
func (r *Registry) List(ctx context.Context, boardID string) ([]Hook, error) {
	m, err := r.rdb.HGetAll(ctx, hooksKey(boardID)).Result()
	if err != nil {
		return nil, fmt.Errorf("hooks: list %q: %w", boardID, err)
	}
	out := make([]Hook, 0, len(m))
	for _, v := range m {
		var h Hook
		if err := json.Unmarshal([]byte(v), &h); err != nil {
			return nil, fmt.Errorf("hooks: read a hook of %q: %w", boardID, err)
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created < out[j].Created
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Get is one hook of a board, or ErrNotFound.
func (r *Registry) Get(ctx context.Context, boardID, id string) (Hook, error) {
	v, err := r.rdb.HGet(ctx, hooksKey(boardID), id).Result()
	if errors.Is(err, redis.Nil) {
		return Hook{}, ErrNotFound
	}
	if err != nil {
		return Hook{}, fmt.Errorf("hooks: get %q of %q: %w", id, boardID, err)
	}
	var h Hook
	if err := json.Unmarshal([]byte(v), &h); err != nil {
		return Hook{}, fmt.Errorf("hooks: read %q of %q: %w", id, boardID, err)
	}
	return h, nil
}

// Delete removes a hook and its delivery log; its queued deliveries are
// dropped when their turn comes.
func (r *Registry) Delete(ctx context.Context, boardID, id string) (Hook, error) {
	var h Hook
	err := r.update(ctx, boardID, id, func(p redis.Pipeliner, got Hook, n int64) {
		h = got
		p.HDel(ctx, hooksKey(boardID), id)
		p.Del(ctx, logKey(boardID, id))
		if n == 1 { // the last one: nothing is left to deliver or compare
			p.Del(ctx, queueKey(boardID), stateKey(boardID))
		}
	})
	return h, err
}

// SetEnabled turns a hook on or off. An off hook gets no new events, and
// its queued deliveries are dropped (listed as skipped).
func (r *Registry) SetEnabled(ctx context.Context, boardID, id string, on bool) (Hook, error) {
	return r.change(ctx, boardID, id, func(h *Hook) { h.Enabled = on })
}

// Rotate gives a hook a new secret and returns the hook with it: deliveries
// from now on are signed with the new one only.
func (r *Registry) Rotate(ctx context.Context, boardID, id string) (Hook, error) {
	return r.change(ctx, boardID, id, func(h *Hook) { h.Secret = newSecret() })
}

func (r *Registry) change(ctx context.Context, boardID, id string, fn func(*Hook)) (Hook, error) {
	var h Hook
	err := r.update(ctx, boardID, id, func(p redis.Pipeliner, got Hook, _ int64) {
		fn(&got)
		h = got
		js, _ := json.Marshal(got)
		p.HSet(ctx, hooksKey(boardID), id, js)
	})
	if err != nil {
		return h, err
	}
	return h, r.index(ctx, boardID)
}

// update reads a hook and writes fn's changes only if no one changed the
// registrations in between (WATCH), retrying a few times.
func (r *Registry) update(ctx context.Context, boardID, id string, fn func(p redis.Pipeliner, h Hook, hooks int64)) error {
	key := hooksKey(boardID)
	for range 5 {
		err := r.rdb.Watch(ctx, func(tx *redis.Tx) error {
			v, err := tx.HGet(ctx, key, id).Result()
			if errors.Is(err, redis.Nil) {
				return ErrNotFound
			}
			if err != nil {
				return err
			}
			var h Hook
			if err := json.Unmarshal([]byte(v), &h); err != nil {
				return err
			}
			n, err := tx.HLen(ctx, key).Result()
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error { fn(p, h, n); return nil })
			return err
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("hooks: change %q of %q: %w", id, boardID, err)
		}
		return err
	}
	return fmt.Errorf("hooks: change %q of %q: too many concurrent changes", id, boardID)
}

// SendTest queues a test event ("ping") for one hook; the runner delivers
// it like any other, and the hook's log shows how it went. A hook that is
// gone (deleted, or its board) is ErrNotFound, and leaves no key behind.
func (r *Registry) SendTest(ctx context.Context, boardID, id string) (string, error) {
	ev, err := testScript.Run(ctx, r.rdb, []string{hooksKey(boardID), seqKey(boardID), queueKey(boardID)},
		id, boardID, strconv.FormatInt(r.now().UnixMilli(), 10), queueKeep).Text()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("hooks: test %q of %q: %w", id, boardID, err)
	}
	return ev, nil
}

// Attempts are a hook's recent delivery attempts, newest first.
func (r *Registry) Attempts(ctx context.Context, boardID, id string) ([]Attempt, error) {
	vs, err := r.rdb.LRange(ctx, logKey(boardID, id), 0, logKeep-1).Result()
	if err != nil {
		return nil, fmt.Errorf("hooks: deliveries of %q of %q: %w", id, boardID, err)
	}
	out := make([]Attempt, 0, len(vs))
	for _, v := range vs {
		var a Attempt
		if json.Unmarshal([]byte(v), &a) == nil {
			a.Error = shown(a.Error)
			out = append(out, a)
		}
	}
	return out, nil
}

// queueKeep bounds a board's delivery queue: a receiver down long enough
// for more to pile up loses the oldest.
const queueKeep = 10_000
