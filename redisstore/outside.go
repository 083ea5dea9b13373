package redisstore

// Periods written straight into Redis. The app's writes note each period
// zset they touch in the board's periods set, which is where the archiver
// looks for closed periods; an outside writer (a game server's ZINCRBY on
// lb:{chess}:w:2026-W40) writes the zset alone. These find such keys and
// note them, so that they are archived and leave Redis like the app's own.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// notePeriodsChunk bounds the keys of one note script call.
const notePeriodsChunk = 200

// NotePeriods adds to the board's periods set those of zsets (keys of the
// board's calendar periods; others are ignored) that exist as sorted sets
// and are not in it, and returns how many it added. A key of a period that
// has already expired from Redis (an outside writer made it again after
// its keys went) is not added: it is set to expire after linger, and
// counted in again.
func (s upkeep) NotePeriods(ctx context.Context, b *board.Board, zsets []string, linger time.Duration) (noted, again int, err error) {
	keys, labels := []string{}, []string{}
	seen := map[string]bool{}
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		c := scripts.note.call(2+len(keys), 1+len(labels)).key("periods", periodsKey(b.ID)).key("archive", ArchiveState(b.ID)).keysOf("zset", keys...).
			arg("ttl", max(linger.Milliseconds(), 1))
		for _, l := range labels {
			c.arg("label", l)
		}
		res, err := c.run(ctx, s.rdb).Int64Slice()
		if err != nil {
			return fmt.Errorf("board: note periods of %q: %w", b.ID, err)
		}
		noted, again = noted+int(res[0]), again+int(res[1])
		keys, labels = keys[:0], labels[:0]
		return nil
	}
	for _, z := range zsets {
		id, k, key, ok := ParseZSetKey(z)
		if !ok || id != b.ID || !k.Calendar() || seen[z] {
			continue
		}
		p, err := b.PeriodOf(k, key)
		if err != nil || ZSetKey(b.ID, p) != z {
			continue // not a period's key: "w:2026-W47x"
		}
		seen[z] = true
		keys, labels = append(keys, z), append(labels, p.String())
		if len(keys) == notePeriodsChunk {
			if err := flush(); err != nil {
				return noted, again, err
			}
		}
	}
	return noted, again, flush()
}

// KeyScan is where a walk of the keyspace for period zsets (ScanPeriodKeys)
// stopped on each node, so that the next step goes on from there. The zero
// value starts at the beginning; it is safe for concurrent use.
type KeyScan struct {
	mu     sync.Mutex
	cursor map[string]uint64 // by node address ("" for a single Redis)
}

// scanCount is SCAN's COUNT: about how many keys each call looks at.
const scanCount = 1000

// periodKeyPattern matches the keys of every board's calendar periods
// (lb:{chess}:w:2026-W47), and some of their helper keys (:e, :t, ...),
// which ParseZSetKey then leaves out.
var periodKeyPattern = func() string {
	letters := ""
	for _, k := range board.Kinds {
		if k.Calendar() {
			letters += kindLetter(k)
		}
	}
	return keyPrefix + "{*}:[" + letters + "]:*"
}()

// ScanPeriodKeys walks the keyspace for the sorted sets of calendar periods
// of any board, and returns them by board id. With budget > 0 it looks at
// about budget keys on each primary, going on from where sc stopped (a
// whole keyspace takes as many steps as it holds budgets); with budget <= 0
// it walks the whole keyspace from the start. On a Redis Cluster each
// primary is walked for the keys it serves: SCAN sees one node's keys.
func (s upkeep) ScanPeriodKeys(ctx context.Context, sc *KeyScan, budget int) (map[string][]string, error) {
	var mu sync.Mutex
	found := map[string][]string{}
	walk := func(ctx context.Context, node redis.Cmdable, addr string) error {
		var cur uint64
		if budget > 0 {
			sc.mu.Lock()
			cur = sc.cursor[addr]
			sc.mu.Unlock()
		}
		for looked := 0; budget <= 0 || looked < budget; looked += scanCount {
			keys, next, err := node.ScanType(ctx, cur, periodKeyPattern, scanCount, "zset").Result()
			if err != nil {
				return fmt.Errorf("board: scan %s for periods: %w", addr, err)
			}
			mu.Lock()
			for _, k := range keys {
				if id, kind, _, ok := ParseZSetKey(k); ok && kind.Calendar() {
					found[id] = append(found[id], k)
				}
			}
			mu.Unlock()
			if cur = next; cur == 0 {
				break // the whole node: the next step starts again
			}
		}
		sc.mu.Lock()
		if sc.cursor == nil {
			sc.cursor = map[string]uint64{}
		}
		sc.cursor[addr] = cur
		sc.mu.Unlock()
		return nil
	}
	var err error
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			return walk(ctx, node, node.Options().Addr)
		})
	} else {
		err = walk(ctx, s.rdb, "")
	}
	return found, err
}
