package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestNoAdminHintFitsTheStore: started without an admin, the server says how
// to make one in a way that works with its store. On the embedded store the
// hint must not send people to `web admin create` (which refuses to run
// there), and following it (ADMIN_USER/ADMIN_PASSWORD at start) gives an
// admin who can sign in.
func TestNoAdminHintFitsTheStore(t *testing.T) {
	t.Parallel()
	// What the embedded store's hint warns of: the command refuses there.
	if err := runCommand(context.Background(), []string{"admin", "create", "--user", "alice"}, env(t, nil), strings.NewReader("a long password\n"), nil, nil); err == nil || !strings.Contains(err.Error(), "ADMIN_USER/ADMIN_PASSWORD") {
		t.Fatalf("admin create on the embedded store: %v", err)
	}

	// The real binary on the embedded store logs the embedded hint.
	bare := serve(t, nil, nil)
	eventually(t, "the no-admin hint", func() bool { return strings.Contains(bare.log.String(), "no admin account yet") })
	if err := bare.stop(); err != nil {
		t.Fatal(err)
	}
	if logs := bare.log.String(); !strings.Contains(logs, "embedded store lives in this process") || strings.Contains(logs, "admin create") {
		t.Fatalf("hint on the embedded store:\n%s", logs)
	}

	// Following it: an admin from ADMIN_USER/ADMIN_PASSWORD signs in.
	s := serve(t, nil, map[string]string{"ADMIN_USER": "alice", "ADMIN_PASSWORD": "correct horse battery"})
	defer s.stop()
	if res := newBrowser(t, s.base, "127.0.0.1").signIn("alice", "correct horse battery"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin" {
		t.Fatalf("sign-in as ADMIN_USER on the embedded store: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if strings.Contains(s.log.String(), "no admin account yet") {
		t.Fatal("the hint shows although ADMIN_USER made an admin")
	}
}
