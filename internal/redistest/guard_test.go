package redistest

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestSlot(t *testing.T) {
	// Values from CLUSTER KEYSLOT on Redis 7.
	for key, want := range map[string]uint16{"foo": 12182, "lb:{chess}:all": Slot("chess"), "{}x": Slot("{}x"), "a{b}c{d}": Slot("b"), "123456789": 12739} {
		if got := Slot(key); got != want {
			t.Errorf("Slot(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestSlotGuard(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer c.Close()
	for _, k := range []string{"foo", "lb:{chess}:all", "{}x", "a{b}c{d}", "123456789"} {
		n, err := c.ClusterKeySlot(ctx, k).Result()
		if err == nil && uint16(n) != Slot(k) { // a non-cluster Redis may refuse the command
			t.Errorf("CLUSTER KEYSLOT %q = %d, Slot says %d", k, n, Slot(k))
		}
	}
	g := NewSlotGuard()
	c.AddHook(g)
	script := redis.NewScript("return #KEYS")
	script.Run(ctx, c, []string{"lb:{a}:x", "lb:{a}:y"})
	if v := g.Violations(); len(v) != 0 {
		t.Fatalf("one slot flagged: %v", v)
	}
	script.Run(ctx, c, []string{"lb:{a}:x", "lb:{b}:y"})
	c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "x1")
		p.Incr(ctx, "x2")
		return nil
	})
	c.Pipelined(ctx, func(p redis.Pipeliner) error { // a plain pipeline may span slots
		p.Incr(ctx, "x1")
		p.Incr(ctx, "x2")
		return nil
	})
	v := g.Violations()
	if len(v) != 2 || !strings.Contains(v[0], "evalsha") || !strings.Contains(v[1], "transaction") {
		t.Fatalf("violations = %q, want the two-slot script and the transaction", v)
	}
	if n := g.Checked()["multi"]; n != 1 {
		t.Errorf("checked %d transactions, want 1", n)
	}
}
