package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a private Redis Cluster: primaries with replicas, each a
// redis-server on a free loopback port.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts primaries*(1+replicas) nodes, joins them with
// redis-cli --cluster create and waits until every node says the cluster is
// ok. Node timeouts are short, so a killed primary fails over in seconds.
func StartCluster(primaries, replicas int) (*Cluster, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redistest: redis-cli not on PATH; install redis-server (apt-get install -y redis-server) or run `make test`, which does")
	}
	c := &Cluster{}
	for tries := 0; len(c.Nodes) < primaries*(1+replicas); tries++ {
		if tries > 3*primaries*(1+replicas) {
			c.Close()
			return nil, fmt.Errorf("redistest: no free ports low enough for a cluster bus (port+10000)")
		}
		s, err := StartWith("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0")
		if err != nil {
			c.Close()
			return nil, err
		}
		if s.port > 65535-10000 { // its cluster bus listens on port+10000
			s.Close()
			continue
		}
		c.Nodes = append(c.Nodes, s)
	}
	args := []string{"--cluster", "create"}
	args = append(args, c.Addrs()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		c.Close()
		return nil, fmt.Errorf("redistest: redis-cli --cluster create: %v: %s", err, lastLines(string(out), 5))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.WaitStable(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Addrs lists every node's address (seeds for a cluster client).
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		out[i] = s.Addr
	}
	return out
}

// Close stops every node.
func (c *Cluster) Close() {
	for _, s := range c.Nodes {
		s.Close()
	}
}

// Client is a cluster client of every node; the test closes it at cleanup.
func (c *Cluster) Client(tb testing.TB) *redis.ClusterClient {
	tb.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	guard(tb, cc)
	tb.Cleanup(func() { cc.Close() })
	if err := cc.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redistest: ping cluster: %v", err)
	}
	return cc
}

// Node is the running server at addr, or nil.
func (c *Cluster) Node(addr string) *Server {
	for _, s := range c.Nodes {
		if s.Addr == addr && s.cmd != nil {
			return s
		}
	}
	return nil
}

// Primaries lists the addresses of the nodes that serve slots, as the
// running nodes see them, sorted.
func (c *Cluster) Primaries(ctx context.Context) ([]string, error) {
	slots, err := c.slots(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range slots {
		if s.Primary != "" && !slices.Contains(out, s.Primary) {
			out = append(out, s.Primary)
		}
	}
	slices.Sort(out)
	return out, nil
}

// PrimaryOf is the address of the primary serving key's slot.
func (c *Cluster) PrimaryOf(ctx context.Context, key string) (string, error) {
	slot := Slot(key)
	slots, err := c.slots(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range slots {
		if int(slot) >= s.Start && int(slot) <= s.End && s.Primary != "" {
			return s.Primary, nil
		}
	}
	return "", fmt.Errorf("redistest: no node serves slot %d", slot)
}

// slotRange is a range of slots, the address of the online primary serving
// it ("" while there is none), and how many online nodes (the primary and its
// replicas) hold it.
type slotRange struct {
	Start, End int
	Primary    string
	Nodes      int
}

// slotsOf reads which primary serves which slots, as node r sees it (CLUSTER
// SHARDS: CLUSTER SLOTS is deprecated since Redis 7).
func slotsOf(ctx context.Context, r *redis.Client) ([]slotRange, error) {
	shards, err := r.ClusterShards(ctx).Result()
	if err != nil {
		return nil, err
	}
	var out []slotRange
	for _, sh := range shards {
		primary, n := "", 0
		for _, nd := range sh.Nodes {
			if nd.Health != "online" {
				continue
			}
			n++
			if nd.Role == "master" {
				host := nd.Endpoint
				if host == "" {
					host = nd.IP
				}
				primary = net.JoinHostPort(host, strconv.FormatInt(nd.Port, 10))
			}
		}
		for _, r := range sh.Slots { // primary "": none online (a failover to come)
			out = append(out, slotRange{Start: int(r.Start), End: int(r.End), Primary: primary, Nodes: n})
		}
	}
	slices.SortFunc(out, func(a, b slotRange) int { return a.Start - b.Start })
	return out, nil
}

func (c *Cluster) slots(ctx context.Context) ([]slotRange, error) {
	var errs []error
	for _, s := range c.Nodes {
		if s.cmd == nil {
			continue
		}
		r := redis.NewClient(&redis.Options{Addr: s.Addr})
		slots, err := slotsOf(ctx, r)
		r.Close()
		if err == nil {
			return slots, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("redistest: cluster slots: %w", errors.Join(errs...))
}

// WaitStable waits until every running node says cluster_state:ok and they
// all agree on which node serves each slot.
func (c *Cluster) WaitStable(ctx context.Context) error {
	var last string
	for {
		last = c.unstable(ctx)
		if last == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: cluster not stable: %s", last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *Cluster) unstable(ctx context.Context) string {
	var want string
	for _, s := range c.Nodes {
		if s.cmd == nil {
			continue
		}
		r := redis.NewClient(&redis.Options{Addr: s.Addr})
		info, err := r.ClusterInfo(ctx).Result()
		var slots []slotRange
		var repl string
		if err == nil {
			slots, err = slotsOf(ctx, r)
		}
		if err == nil {
			repl, err = r.Info(ctx, "replication").Result()
		}
		r.Close()
		if err != nil {
			return s.Addr + ": " + err.Error()
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return s.Addr + " is not ok yet"
		}
		if strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up") {
			return s.Addr + " has not synced with its primary yet"
		}
		for _, sl := range slots {
			if sl.Primary == "" {
				return fmt.Sprintf("slots %d-%d have no online primary yet", sl.Start, sl.End)
			}
			if n := c.stopped(sl.Primary); n {
				return fmt.Sprintf("slots %d-%d are still served by the stopped %s", sl.Start, sl.End, sl.Primary)
			}
		}
		var b strings.Builder
		for _, sl := range slots {
			fmt.Fprintf(&b, "%d-%d:%s:%d ", sl.Start, sl.End, sl.Primary, sl.Nodes)
		}
		if want == "" {
			want = b.String()
		} else if b.String() != want {
			return "nodes disagree on the slots: " + want + "/ " + b.String()
		}
	}
	return ""
}

func (c *Cluster) stopped(addr string) bool {
	for _, s := range c.Nodes {
		if s.Addr == addr {
			return s.cmd == nil
		}
	}
	return false
}

// MoveSlot reshards one slot to the primary at to, keys and all, the way
// redis-cli --cluster reshard does: IMPORTING/MIGRATING, MIGRATE in batches,
// then SETSLOT NODE on every primary.
func (c *Cluster) MoveSlot(ctx context.Context, slot int, to string) error {
	from, err := c.primaryOfSlot(ctx, slot)
	if err != nil {
		return err
	}
	if from == to {
		return nil
	}
	src, dst := redis.NewClient(&redis.Options{Addr: from}), redis.NewClient(&redis.Options{Addr: to})
	defer src.Close()
	defer dst.Close()
	srcID, err := src.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		return fmt.Errorf("redistest: move slot: %w", err)
	}
	dstID, err := dst.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		return fmt.Errorf("redistest: move slot: %w", err)
	}
	if err := dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID).Err(); err != nil {
		return fmt.Errorf("redistest: importing: %w", err)
	}
	if err := src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID).Err(); err != nil {
		return fmt.Errorf("redistest: migrating: %w", err)
	}
	host, port, _ := strings.Cut(to, ":")
	for {
		keys, err := src.ClusterGetKeysInSlot(ctx, slot, 100).Result()
		if err != nil {
			return fmt.Errorf("redistest: keys in slot: %w", err)
		}
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "REPLACE", "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		if err := src.Do(ctx, args...).Err(); err != nil {
			return fmt.Errorf("redistest: migrate: %w", err)
		}
	}
	primaries, err := c.Primaries(ctx)
	if err != nil {
		return err
	}
	for _, addr := range append([]string{to, from}, primaries...) {
		r := redis.NewClient(&redis.Options{Addr: addr})
		err := r.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err()
		r.Close()
		if err != nil {
			return fmt.Errorf("redistest: setslot node on %s: %w", addr, err)
		}
	}
	return c.WaitStable(ctx)
}

func (c *Cluster) primaryOfSlot(ctx context.Context, slot int) (string, error) {
	slots, err := c.slots(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range slots {
		if slot >= s.Start && slot <= s.End && s.Primary != "" {
			return s.Primary, nil
		}
	}
	return "", fmt.Errorf("redistest: no node serves slot %d", slot)
}

// MainCluster runs a package's tests with one private cluster of three
// primaries with a replica each, exported through *c; use it from TestMain.
func MainCluster(m *testing.M, c **Cluster) {
	cl, err := StartCluster(3, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*c = cl
	code := m.Run()
	cl.Close()
	os.Exit(code)
}
