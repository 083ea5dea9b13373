package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinel is a private primary, its replica, and three sentinels watching
// them under the name Master, with short timeouts: a killed primary is
// replaced within a few seconds.
type Sentinel struct {
	Master    string
	Primary   *Server // the primary at the start
	Replica   *Server
	Sentinels []*Server
}

// StartSentinel starts the five processes and waits until every sentinel
// knows the replica.
func StartSentinel() (*Sentinel, error) {
	s := &Sentinel{Master: "podium"}
	var err error
	if s.Primary, err = StartWith("--repl-diskless-sync-delay", "0"); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(s.Primary.Addr)
	if s.Replica, err = StartWith("--replicaof", host, port, "--repl-diskless-sync-delay", "0"); err != nil {
		s.Close()
		return nil, err
	}
	conf := fmt.Sprintf("sentinel monitor %[1]s %[2]s %[3]s 2\nsentinel down-after-milliseconds %[1]s 1000\n"+
		"sentinel failover-timeout %[1]s 5000\nsentinel parallel-syncs %[1]s 1\n", s.Master, host, port)
	for range 3 {
		sn, err := start(conf)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.Sentinels = append(s.Sentinels, sn)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := redis.NewClient(&redis.Options{Addr: s.Replica.Addr})
	defer r.Close()
	for {
		info, err := r.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			break
		}
		if ctx.Err() != nil {
			s.Close()
			return nil, fmt.Errorf("redistest: the replica %s did not sync: %v", s.Replica.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, sn := range s.Sentinels {
		c := redis.NewSentinelClient(&redis.Options{Addr: sn.Addr})
		for {
			replicas, err := c.Replicas(ctx, s.Master).Result()
			if err == nil && len(replicas) > 0 {
				break
			}
			if ctx.Err() != nil {
				c.Close()
				s.Close()
				return nil, fmt.Errorf("redistest: sentinel %s does not see the replica: %v", sn.Addr, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		c.Close()
	}
	return s, nil
}

// Addrs lists the sentinels' addresses.
func (s *Sentinel) Addrs() []string {
	out := make([]string, len(s.Sentinels))
	for i, sn := range s.Sentinels {
		out[i] = sn.Addr
	}
	return out
}

// MasterAddr asks the first sentinel that answers which node is the primary.
func (s *Sentinel) MasterAddr(ctx context.Context) (string, error) {
	var last error
	for _, sn := range s.Sentinels {
		c := redis.NewSentinelClient(&redis.Options{Addr: sn.Addr})
		hp, err := c.GetMasterAddrByName(ctx, s.Master).Result()
		c.Close()
		if err == nil && len(hp) == 2 {
			return net.JoinHostPort(hp[0], hp[1]), nil
		}
		last = err
	}
	return "", fmt.Errorf("redistest: no sentinel names the primary: %v", last)
}

// WaitFailover waits until the sentinels name a primary other than old.
func (s *Sentinel) WaitFailover(ctx context.Context, old string) (string, error) {
	for {
		addr, err := s.MasterAddr(ctx)
		if err == nil && addr != old {
			return addr, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("redistest: no failover from %s: %v", old, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Client is a failover client through the sentinels; closed at cleanup.
func (s *Sentinel) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: s.Master, SentinelAddrs: s.Addrs()})
	tb.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redistest: ping through sentinels: %v", err)
	}
	return c
}

// Close stops every process.
func (s *Sentinel) Close() {
	for _, sn := range s.Sentinels {
		sn.Close()
	}
	for _, r := range []*Server{s.Replica, s.Primary} {
		if r != nil {
			r.Close()
		}
	}
}

// MainSentinel runs a package's tests with one private Sentinel set-up.
func MainSentinel(m *testing.M, s **Sentinel) {
	st, err := StartSentinel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*s = st
	code := m.Run()
	st.Close()
	os.Exit(code)
}
