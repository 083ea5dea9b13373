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
	backoff := 100 * time.Millisecond
	subscribed := false
	start := time.Now() // pings carry their time since (Pong.Payload)
	log := h.log
	if node != "" {
		log = log.With(slog.String("node", node))
	}
	for ctx.Err() == nil {
		ps := rdb.PSubscribe(ctx, h.keyspacePrefix()+redisstore.KeyPattern)
		// Receive does not return on cancellation while it waits for a
		// message; closing the subscription does.
		stop := context.AfterFunc(ctx, func() { ps.Close() })
		var checks sync.WaitGroup
		endCheck := func() {}
		heard := time.Now()
		for {
			// A silent subscription is pinged a few times a tick, each
			// ping saying when it was sent: the read cache trusts
			// notifications only while the last tick is vouched for
			// (Hub.Fresh). One silent for healthEvery is dead.
			msg, err := ps.ReceiveTimeout(ctx, h.opts.Tick/pingsPerTick)
			var nerr net.Error
			silent := time.Since(heard)
			if err != nil && silent < healthEvery && errors.As(err, &nerr) && nerr.Timeout() && ctx.Err() == nil {
				err = ps.Ping(ctx, strconv.FormatInt(int64(time.Since(start)), 10))
				if err == nil {
					continue
				}
			}
			if err != nil {
				h.watch.lost(node)
				if ctx.Err() == nil {
					if silent >= healthEvery {
						err = fmt.Errorf("no answer to a ping in %v: %w", healthEvery, err)
					}
					log.Warn("live: keyspace subscription lost (Redis unavailable?); resubscribing", slog.Any("error", err), slog.Duration("after", backoff))
				}
				break
			}
			heard = time.Now()
			switch m := msg.(type) {
			case *redis.Pong:
				if d, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
					h.watch.ponged(node, start.Add(time.Duration(d)))
				}
			case *redis.Subscription:
				if subscribed || late {
					log.Info("live: subscribed; re-reading every view")
				}
				// Views opened before this subscription (at start, even the
				// first) may have missed writes: none goes unseen.
				h.resyncAll()
				h.watch.heard(node, true)
				if h.opts.SelfPublished {
					h.watch.notifying(node, true) // the store sends them itself
				}
				subscribed = true
				backoff = 100 * time.Millisecond
				if !h.opts.SelfPublished {
					endCheck() // one check at a time
					checks.Wait()
					var cctx context.Context
					cctx, endCheck = context.WithCancel(ctx)
					checks.Go(func() { h.keepNotifications(cctx, rdb, node, log) })
				}
			case *redis.Message:
				h.watch.heard(node, false)
				h.stats.events.Add(1)
				h.stats.notified()
				h.markDirty(strings.TrimPrefix(m.Channel, h.keyspacePrefix()))
			}
		}
		endCheck()
		checks.Wait()
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

// notifyFlags are the keyspace events the hub needs: zsets, generic,
// hashes (display names) and expired, as keyspace (K) messages.
const notifyFlags = "Kzghx"

// keepNotifications makes sure that the node a new subscription reached
// sends keyspace notifications, for as long as ctx (the subscription)
// lasts. A Redis that had them from the app's CONFIG SET, not from its own
// configuration, comes back from a restart without them, as does a
// promoted replica configured apart; and another client may set the flags
// for itself meanwhile, dropping ours, which nothing else would tell: so
// they are read again every notifyCheckEvery. Where Redis refuses CONFIG
// (managed services), or cannot be asked, watched keys are polled
// meanwhile, and the log says so.
func (h *Hub) keepNotifications(ctx context.Context, rdb redis.UniversalClient, node string, log *slog.Logger) {
	wait, checked := 100*time.Millisecond, false
	for {
		set, err := ensureNotifications(ctx, rdb)
		var refused redis.Error // an answer from Redis, not a network error
		switch {
		case ctx.Err() != nil:
			h.setNotify(node, notifyUnknown, nil, log) // the subscription is gone: the next one asks again
			return
		case err == nil:
			if set != "" {
				msg := "live: keyspace notifications were off; turned on (set them in redis.conf to keep them across restarts)"
				if checked {
					msg = "live: keyspace notifications were turned off while subscribed (another client's CONFIG SET?); turned on again"
				}
				log.Info(msg, slog.String("notify-keyspace-events", set))
				h.resyncAll() // writes since the subscription, or since the last check, sent nothing
			}
			h.setNotify(node, notifyOn, nil, log)
			checked, wait = true, 100*time.Millisecond
			select {
			case <-ctx.Done():
			case <-time.After(notifyCheckEvery):
			}
			continue
		case errors.As(err, &refused):
			h.setNotify(node, notifyRefused, err, log)
			return
		}
		h.setNotify(node, notifyUnsure, err, log)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// notifyCheckEvery is how often a subscribed node's notify-keyspace-events
// is read again (keepNotifications): flags another client turned off are
// back within it, and the read cache serves no answer kept from before
// them for longer.
const notifyCheckEvery = time.Second

// ensureNotifications reads notify-keyspace-events on the node rdb reaches
// and adds the flags the hub needs, saying what it set ("" when nothing was
// missing). It asks through rdb's pool first, then, on a network error,
// over a connection of its own: after an outage rdb's pool fails fast with
// its last dial error for up to a second after the node is back, while the
// subscription, from a pool of its own, is already up.
func ensureNotifications(ctx context.Context, rdb redis.UniversalClient) (string, error) {
	set, err := setNotifications(ctx, rdb)
	var answer redis.Error
	if err == nil || errors.As(err, &answer) || ctx.Err() != nil {
		return set, err
	}
	alone := ownConnection(rdb)
	if alone == nil {
		return set, err
	}
	defer alone.Close()
	return setNotifications(ctx, alone)
}

func setNotifications(ctx context.Context, rdb redis.UniversalClient) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cur, err := rdb.ConfigGet(ctx, "notify-keyspace-events").Result()
	if err != nil {
		return "", err
	}
	flags := cur["notify-keyspace-events"]
	want := flags
	for _, f := range notifyFlags {
		if !strings.ContainsRune(want, f) && !(f != 'K' && strings.ContainsRune(want, 'A')) {
			want += string(f)
		}
	}
	if want == flags {
		return "", nil
	}
	if err := rdb.ConfigSet(ctx, "notify-keyspace-events", want).Err(); err != nil {
		return "", err
	}
	return want, nil
}

// ownConnection is a client of one connection to the node rdb reaches
// (through the same dialer: a Sentinel's current primary, a Cluster node),
// made apart from rdb's pool; nil for a client of another kind.
func ownConnection(rdb redis.UniversalClient) *redis.Client {
	c, ok := rdb.(*redis.Client)
	if !ok {
		return nil
	}
	o := c.Options()
	return redis.NewClient(&redis.Options{
		Network: o.Network, Addr: o.Addr, Dialer: o.Dialer, OnConnect: o.OnConnect, Protocol: o.Protocol,
		Username: o.Username, Password: o.Password, CredentialsProvider: o.CredentialsProvider,
		CredentialsProviderContext: o.CredentialsProviderContext, StreamingCredentialsProvider: o.StreamingCredentialsProvider,
		DB: o.DB, TLSConfig: o.TLSConfig, ClientName: o.ClientName,
		DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout,
		PoolSize: 1, MaxRetries: -1, DialerRetries: 1,
	})
}

// notifyState is what the hub knows of one node's notifications.
type notifyState int

const (
	notifyUnknown notifyState = iota // not asked yet, or no longer watched
	notifyOn                         // on, read or set
	notifyRefused                    // CONFIG refused: polled
	notifyUnsure                     // CONFIG unanswered while subscribed: polled until it answers
)

// setNotify notes what is known of node's notifications, and polls while
// any node refuses CONFIG or cannot be asked. The log says when polling
// starts, why, and when it stops.
func (h *Hub) setNotify(node string, st notifyState, err error, log *slog.Logger) {
	h.watch.notifying(node, st == notifyOn)
	h.mu.Lock()
	was, before := len(h.refusing) > 0, h.refusing[node]
	if st == notifyRefused || st == notifyUnsure {
		h.refusing[node] = st
	} else {
		delete(h.refusing, node)
	}
	now := len(h.refusing) > 0
	h.polling.Store(now)
	h.mu.Unlock()
	switch {
	case st == notifyRefused && before != notifyRefused:
		log.Warn("live: Redis refused CONFIG for keyspace notifications; set notify-keyspace-events to include "+notifyFlags+
			" (redis.conf or your provider's settings). Until then watched boards are polled.",
			slog.Any("error", err), slog.Duration("poll", h.opts.PollInterval))
	case st == notifyUnsure && before != notifyUnsure:
		log.Warn("live: cannot check that Redis sends keyspace notifications (CONFIG GET failed); watched boards are polled until it answers",
			slog.Any("error", err), slog.Duration("poll", h.opts.PollInterval))
	case was && !now && st == notifyOn:
		log.Info("live: keyspace notifications are on; polling stopped")
	case was && !now:
		log.Info("live: polling stopped")
	}
}
