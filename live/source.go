package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
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
// open, and is said in the log.
func (h *Hub) subscribe(ctx context.Context, rdb redis.UniversalClient, node string, late bool) {
	defer h.setRefusing(node, false, nil, h.log) // a node no longer watched refuses nothing
	backoff := 100 * time.Millisecond
	subscribed := false
	log := h.log
	if node != "" {
		log = log.With(slog.String("node", node))
	}
	for ctx.Err() == nil {
		if !h.opts.SelfPublished {
			h.ensureNotifications(ctx, rdb, node, log)
		}
		ps := rdb.PSubscribe(ctx, h.keyspacePrefix()+board.KeyPattern)
		// Receive does not return on cancellation while it waits for a
		// message; closing the subscription does.
		stop := context.AfterFunc(ctx, func() { ps.Close() })
		pinged := false
		for {
			msg, err := ps.ReceiveTimeout(ctx, healthEvery)
			var nerr net.Error
			if err != nil && !pinged && errors.As(err, &nerr) && nerr.Timeout() && ctx.Err() == nil {
				pinged = true
				err = ps.Ping(ctx)
				if err == nil {
					continue
				}
			}
			if err != nil {
				if ctx.Err() == nil {
					if pinged {
						err = fmt.Errorf("no answer to a ping in %v: %w", healthEvery, err)
					}
					log.Warn("live: keyspace subscription lost (Redis unavailable?); resubscribing", slog.Any("error", err), slog.Duration("after", backoff))
				}
				break
			}
			pinged = false
			switch m := msg.(type) {
			case *redis.Subscription:
				if subscribed || late {
					log.Info("live: subscribed; re-reading every view")
				}
				// Views opened before this subscription (at start, even the
				// first) may have missed writes: none goes unseen.
				h.resyncAll()
				subscribed = true
				backoff = 100 * time.Millisecond
			case *redis.Message:
				h.stats.events.Add(1)
				h.stats.notified()
				h.markDirty(strings.TrimPrefix(m.Channel, h.keyspacePrefix()))
			}
		}
		stop()
		ps.Close()
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
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
		var slots []redis.ClusterSlot
		if err == nil {
			slots, err = cc.ClusterSlots(ctx).Result()
			for _, n := range primaries { // the node it asked may be the one that went
				if err == nil || ctx.Err() != nil {
					break
				}
				slots, err = n.ClusterSlots(ctx).Result()
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
			now := clusterShape(slots)
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
}

// clusterShape is a fingerprint of which primary serves which slots.
func clusterShape(slots []redis.ClusterSlot) string {
	slots = slices.Clone(slots)
	slices.SortFunc(slots, func(a, b redis.ClusterSlot) int { return a.Start - b.Start })
	var b strings.Builder
	for _, s := range slots {
		if len(s.Nodes) > 0 {
			fmt.Fprintf(&b, "%d-%d=%s;", s.Start, s.End, s.Nodes[0].Addr)
		}
	}
	return b.String()
}

// ensureNotifications turns on keyspace events for zsets, generic, hash and
// expired commands on one node. Where Redis refuses CONFIG (managed
// services), it says which setting to change, and watched keys are polled
// while any node refuses. A node that cannot be reached refuses nothing: its
// subscription fails and is retried.
func (h *Hub) ensureNotifications(ctx context.Context, rdb redis.UniversalClient, node string, log *slog.Logger) {
	cur, err := rdb.ConfigGet(ctx, "notify-keyspace-events").Result()
	flags := cur["notify-keyspace-events"]
	want := flags
	for _, f := range "Kzghx" { // zsets, generic, hashes (display names), expired
		if !strings.ContainsRune(want, f) && !(f != 'K' && strings.ContainsRune(want, 'A')) {
			want += string(f)
		}
	}
	if err == nil && want != flags {
		err = rdb.ConfigSet(ctx, "notify-keyspace-events", want).Err()
	}
	var refused redis.Error // an answer from Redis, not a network error
	if err != nil && !errors.As(err, &refused) {
		return
	}
	h.setRefusing(node, err != nil, err, log)
}

// setRefusing notes whether node refuses CONFIG and polls while any does.
func (h *Hub) setRefusing(node string, refusing bool, err error, log *slog.Logger) {
	h.mu.Lock()
	was := len(h.refusing) > 0
	if refusing {
		h.refusing[node] = true
	} else {
		delete(h.refusing, node)
	}
	now := len(h.refusing) > 0
	h.polling.Store(now)
	h.mu.Unlock()
	switch {
	case now && !was:
		log.Warn("live: Redis refused CONFIG for keyspace notifications; set notify-keyspace-events to include Kzghx "+
			"(redis.conf or your provider's settings). Until then watched boards are polled.",
			slog.Any("error", err), slog.Duration("poll", h.opts.PollInterval))
	case was && !now:
		log.Info("live: keyspace notifications are on; polling stopped")
	}
}
