package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/redisstore"
)

// Keyspace notifications are local to each Redis node. On one Redis (or a
// Sentinel-watched primary, which the client follows) the hub subscribes
// there; on a Redis Cluster it subscribes on every primary and follows the
// topology: a primary that appears (a failover, a node added) gets a
// subscription, one that no longer serves slots loses it, and any change of
// which primary serves which slot makes every view send a full snapshot,
// since notifications of a moving key may have been missed.

// keyspacePrefix is the channel prefix of the watched database's notifications.
func (h *Hub) keyspacePrefix() string { return fmt.Sprintf("__keyspace@%d__:", h.opts.DB) }

// listen runs the subscriptions until ctx ends. It never blocks on a
// browser: a notification only marks a key dirty under the hub's lock.
func (h *Hub) listen(ctx context.Context) {
	if cc, ok := h.rdb.(*redis.ClusterClient); ok {
		h.listenCluster(ctx, cc)
		return
	}
	h.subscribe(ctx, h.rdb, "", false)
}

// healthEvery is how long a subscription may stay silent before the hub
// pings it; a ping unanswered for as long again ends it (a half-open
// connection, a primary gone without a word), and it is made anew.
const healthEvery = 5 * time.Second

// subscribe keeps one node's pattern subscription. Every subscription asks
// for a full re-read of the views open by then, since notifications are
// fire-and-forget: after the first, the node restarted, failed over, or the
// connection dropped; late marks a primary that appeared while views were
// open, and is said in the log. Each subscription then makes sure the node
// it reached sends notifications (keepNotifications): a Redis restarted,
// or a replica promoted, comes back with its own configuration.
func (h *Hub) subscribe(ctx context.Context, rdb redis.UniversalClient, node string, late bool) {
	defer h.setNotify(node, notifyUnknown, nil, h.log) // a node no longer watched refuses nothing
	h.watch.add(node)
	defer h.watch.remove(node)
	s := &nodeSub{h: h, rdb: rdb, node: node, late: late, log: h.log, start: time.Now(), backoff: 100 * time.Millisecond}
	if node != "" {
		s.log = s.log.With(slog.String("node", node))
	}
	for ctx.Err() == nil {
		ps := rdb.PSubscribe(ctx, h.keyspacePrefix()+redisstore.KeyPattern)
		// Receive does not return on cancellation while it waits for a
		// message; closing the subscription does.
		stop := context.AfterFunc(ctx, func() { ps.Close() })
		s.endCheck = func() {}
		s.receive(ctx, ps)
		s.endCheck()
		s.checks.Wait()
		stop()
		ps.Close()
		select {
		case <-ctx.Done():
		case <-time.After(s.backoff):
		}
		s.backoff = min(s.backoff*2, 5*time.Second)
	}
}

// nodeSub is one node's subscription, across its reconnections.
type nodeSub struct {
	h          *Hub
	rdb        redis.UniversalClient
	node       string
	late       bool
	log        *slog.Logger
	start      time.Time // pings carry their time since (Pong.Payload)
	subscribed bool
	backoff    time.Duration
	checks     sync.WaitGroup // the notifications check of this subscription
	endCheck   func()
}

// receive takes ps's messages until it fails.
func (s *nodeSub) receive(ctx context.Context, ps *redis.PubSub) {
	h := s.h
	heard := time.Now()
	for {
		// A silent subscription is pinged a few times a tick, each ping
		// saying when it was sent: the read cache trusts notifications
		// only while the last tick is vouched for (Hub.Fresh). One
		// silent for healthEvery is dead.
		msg, err := ps.ReceiveTimeout(ctx, h.opts.Tick/pingsPerTick)
		var nerr net.Error
		silent := time.Since(heard)
		if err != nil && silent < healthEvery && errors.As(err, &nerr) && nerr.Timeout() && ctx.Err() == nil {
			err = ps.Ping(ctx, strconv.FormatInt(int64(time.Since(s.start)), 10))
			if err == nil {
				continue
			}
		}
		if err != nil {
			h.watch.lost(s.node)
			if ctx.Err() == nil {
				if silent >= healthEvery {
					err = fmt.Errorf("no answer to a ping in %v: %w", healthEvery, err)
				}
				s.log.Warn("live: keyspace subscription lost (Redis unavailable?); resubscribing", slog.Any("error", err), slog.Duration("after", s.backoff))
			}
			return
		}
		heard = time.Now()
		s.handle(ctx, msg)
	}
}

// handle is one message of the subscription.
func (s *nodeSub) handle(ctx context.Context, msg any) {
	h := s.h
	switch m := msg.(type) {
	case *redis.Pong:
		if d, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
			h.watch.ponged(s.node, s.start.Add(time.Duration(d)))
		}
	case *redis.Subscription:
		if s.subscribed || s.late {
			s.log.Info("live: subscribed; re-reading every view")
		}
		// Views opened before this subscription (at start, even the
		// first) may have missed writes: none goes unseen.
		h.resyncAll()
		h.watch.heard(s.node, true)
		if h.opts.SelfPublished {
			h.watch.notifying(s.node, true) // the store sends them itself
		}
		s.subscribed = true
		s.backoff = 100 * time.Millisecond
		if !h.opts.SelfPublished {
			s.endCheck() // one check at a time
			s.checks.Wait()
			var cctx context.Context
			cctx, s.endCheck = context.WithCancel(ctx)
			s.checks.Go(func() { h.keepNotifications(cctx, s.rdb, s.node, s.log) })
		}
	case *redis.Message:
		h.watch.heard(s.node, false)
		h.stats.events.Add(1)
		h.stats.notified()
		h.markDirty(strings.TrimPrefix(m.Channel, h.keyspacePrefix()))
	}
}

// listenCluster subscribes on every primary of a Redis Cluster and follows
// its topology every Options.Topology. The subscriptions go through the
// cluster client's own node clients, so they reach nodes as its commands do
// (same credentials, TLS, dialer and address mapping); the cluster client
// owns and closes them.
func (h *Hub) listenCluster(ctx context.Context, cc *redis.ClusterClient) {
	type sub struct {
		rdb  *redis.Client
		stop context.CancelFunc
		done chan struct{}
	}
	subs := map[string]*sub{}
	end := func(addr string) {
		subs[addr].stop()
		<-subs[addr].done
		delete(subs, addr)
	}
	defer func() {
		for addr := range subs {
			end(addr)
		}
	}()
	shape, first := "", true
	t := time.NewTicker(h.opts.Topology)
	defer t.Stop()
	for {
		// ForEachMaster reloads the cluster's state first.
		var mu sync.Mutex
		primaries := map[string]*redis.Client{}
		err := cc.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
			mu.Lock()
			primaries[n.Options().Addr] = n
			mu.Unlock()
			return nil
		})
		var shards []redis.ClusterShard
		if err == nil {
			shards, err = cc.ClusterShards(ctx).Result()
			for _, n := range primaries { // the node it asked may be the one that went
				if err == nil || ctx.Err() != nil {
					break
				}
				shards, err = n.ClusterShards(ctx).Result()
			}
		}
		if err != nil && ctx.Err() == nil {
			h.log.Warn("live: cannot read the cluster's topology; keeping the subscriptions", slog.Any("error", err))
		}
		if err == nil {
			for addr, s := range subs {
				if primaries[addr] != s.rdb {
					h.log.Info("live: node no longer a primary; unsubscribed", slog.String("node", addr))
					end(addr)
				}
			}
			for addr, n := range primaries {
				if subs[addr] != nil {
					continue
				}
				sctx, stop := context.WithCancel(ctx)
				s := &sub{rdb: n, stop: stop, done: make(chan struct{})}
				subs[addr] = s
				late := !first
				go func() {
					defer close(s.done)
					h.subscribe(sctx, n, addr, late)
				}()
			}
			now := clusterShape(shards)
			if shape != "" && now != shape {
				h.log.Info("live: the cluster's slots moved; re-reading every view", slog.Int("primaries", len(primaries)))
				h.resyncAll()
			}
			shape, first = now, false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// resyncAll makes the next tick re-read every view and send snapshots:
// notifications may have been missed.
func (h *Hub) resyncAll() {
	h.mu.Lock()
	h.resync = true
	h.mu.Unlock()
	if c := h.cache.Load(); c != nil {
		c.Flush()
	}
}

// clusterShape is a fingerprint of which primary serves which slots.
func clusterShape(shards []redis.ClusterShard) string {
	var parts []string
	for _, sh := range shards {
		for _, n := range sh.Nodes {
			if n.Role != "master" || n.Health != "online" {
				continue
			}
			for _, r := range sh.Slots {
				parts = append(parts, fmt.Sprintf("%d-%d=%s", r.Start, r.End, n.ID))
			}
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}
