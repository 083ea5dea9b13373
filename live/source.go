package live

import (
	"context"
	"fmt"
	"log/slog"
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

// subscribe keeps one node's pattern subscription. Every subscription after
// the first (the node restarted, failed over, or the connection dropped)
// asks for a full re-read, since notifications are fire-and-forget; so does
// the first when late is set (a primary that appeared while views were open).
func (h *Hub) subscribe(ctx context.Context, rdb redis.UniversalClient, node string, late bool) {
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
		for {
			msg, err := ps.Receive(ctx)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("live: keyspace subscription lost; resubscribing", slog.Any("error", err), slog.Duration("after", backoff))
				}
				break
			}
			switch m := msg.(type) {
			case *redis.Subscription:
				if subscribed || late {
					log.Info("live: subscribed; re-reading every view")
					h.mu.Lock()
					h.resync = true
					h.mu.Unlock()
				}
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
// its topology every Options.Topology.
func (h *Hub) listenCluster(ctx context.Context, cc *redis.ClusterClient) {
	type sub struct {
		rdb  *redis.Client
		stop context.CancelFunc
		done chan struct{}
	}
	subs := map[string]*sub{}
	var wg sync.WaitGroup
	defer func() {
		for _, s := range subs {
			s.stop()
		}
		wg.Wait()
		for _, s := range subs {
			s.rdb.Close()
		}
	}()
	shape, first := "", true
	t := time.NewTicker(h.opts.Topology)
	defer t.Stop()
	for {
		slots, err := cc.ClusterSlots(ctx).Result()
		for addr := range subs { // the cluster client's node may be the one that went
			if err == nil || ctx.Err() != nil {
				break
			}
			slots, err = subs[addr].rdb.ClusterSlots(ctx).Result()
		}
		if err != nil && ctx.Err() == nil {
			h.log.Warn("live: cannot read the cluster's slots; keeping the subscriptions", slog.Any("error", err))
		}
		if err == nil {
			primaries, now := clusterShape(slots)
			for addr, s := range subs {
				if !slices.Contains(primaries, addr) {
					h.log.Info("live: node no longer a primary; unsubscribed", slog.String("node", addr))
					s.stop()
					<-s.done
					s.rdb.Close()
					delete(subs, addr)
				}
			}
			for _, addr := range primaries {
				if subs[addr] != nil {
					continue
				}
				sctx, stop := context.WithCancel(ctx)
				s := &sub{rdb: redis.NewClient(nodeOptions(cc.Options(), addr)), stop: stop, done: make(chan struct{})}
				subs[addr] = s
				wg.Add(1)
				late := !first
				go func() {
					defer wg.Done()
					defer close(s.done)
					h.subscribe(sctx, s.rdb, addr, late)
				}()
			}
			if shape != "" && now != shape {
				h.log.Info("live: the cluster's slots moved; re-reading every view", slog.Int("primaries", len(primaries)))
				cc.ReloadState(ctx)
				h.mu.Lock()
				h.resync = true
				h.mu.Unlock()
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

// clusterShape is the sorted addresses of the primaries serving slots, and
// a fingerprint of which serves which.
func clusterShape(slots []redis.ClusterSlot) ([]string, string) {
	slots = slices.Clone(slots)
	slices.SortFunc(slots, func(a, b redis.ClusterSlot) int { return a.Start - b.Start })
	var primaries []string
	var b strings.Builder
	for _, s := range slots {
		if len(s.Nodes) == 0 {
			continue
		}
		addr := s.Nodes[0].Addr
		fmt.Fprintf(&b, "%d-%d=%s;", s.Start, s.End, addr)
		if !slices.Contains(primaries, addr) {
			primaries = append(primaries, addr)
		}
	}
	slices.Sort(primaries)
	return primaries, b.String()
}

// nodeOptions connects to one node of a cluster as the cluster client does:
// same credentials, TLS and dialer; a small pool, for CONFIG and the slots.
func nodeOptions(o *redis.ClusterOptions, addr string) *redis.Options {
	return &redis.Options{
		Addr: addr, Username: o.Username, Password: o.Password, CredentialsProvider: o.CredentialsProvider,
		TLSConfig: o.TLSConfig, Dialer: o.Dialer, Protocol: o.Protocol,
		DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout, PoolSize: 2,
	}
}

// ensureNotifications turns on keyspace events for zsets, generic, hash and
// expired commands on one node. Where Redis refuses CONFIG (managed
// services), it says which setting to change, and watched keys are polled
// while any node refuses.
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
	if ctx.Err() != nil {
		return
	}
	h.mu.Lock()
	was := len(h.refusing) > 0
	if err != nil {
		h.refusing[node] = true
	} else {
		delete(h.refusing, node)
	}
	now := len(h.refusing) > 0
	h.mu.Unlock()
	h.polling.Store(now)
	switch {
	case now && !was:
		log.Warn("live: Redis refused CONFIG for keyspace notifications; set notify-keyspace-events to include Kzghx "+
			"(redis.conf or your provider's settings). Until then watched boards are polled.",
			slog.Any("error", err), slog.Duration("poll", h.opts.PollInterval))
	case was && !now:
		log.Info("live: keyspace notifications are on; polling stopped")
	}
}
