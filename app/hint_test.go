package app

import (
	"strings"
	"testing"
)

// TestNoAdminHint: without an admin, the app says how to make one in a way
// that works with its store: on the embedded store not with `web admin
// create`, which refuses to run there (cmd/web's TestNoAdminHintFitsTheStore
// follows the hint).
func TestNoAdminHint(t *testing.T) {
	embedded, err := ParseConfig(nil, env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	onRedis, err := ParseConfig(nil, env(map[string]string{"REDIS_URL": "redis://127.0.0.1:6379/0"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := noAdminHint(embedded); strings.Contains(h, "admin create") || !strings.Contains(h, "ADMIN_USER") || !strings.Contains(h, "--demo") {
		t.Fatalf("embedded store hint: %s", h)
	}
	if h := noAdminHint(onRedis); !strings.Contains(h, "web admin create") || !strings.Contains(h, "ADMIN_USER") {
		t.Fatalf("Redis hint: %s", h)
	}
}
