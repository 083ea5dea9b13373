package live

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Keyspace notifications themselves: the flags the hub needs, turned on
// where they are off, and polling where Redis will not say.

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
