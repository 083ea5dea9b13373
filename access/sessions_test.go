package access

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessionsOfAUser: each session records where it began; the admin sees
// their live sessions newest first under ids that are not tokens, and can end
// the others, or one by id, but never another admin's.
func TestSessionsOfAUser(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	s := NewSessions(rdb)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	longUA := "Mozilla/5.0 " + strings.Repeat("é", 1000)
	var tokens []string
	for i, client := range [][2]string{{"192.0.2.1", "Firefox"}, {"2001:db8::7", longUA}, {"198.51.100.3", "Safari"}} {
		tok, err := s.Create(ctx, "alice", client[0], client[1])
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
		now = now.Add(time.Duration(i+1) * time.Minute)
	}
	bobs, _ := s.Create(ctx, "bob", "203.0.113.8", "curl")

	list, err := s.List(ctx, "alice")
	if err != nil || len(list) != 3 {
		t.Fatalf("list: %+v %v", list, err)
	}
	if list[0].Addr != "198.51.100.3" || list[0].UserAgent != "Safari" || list[2].Addr != "192.0.2.1" ||
		!list[0].Created.After(list[1].Created) || !list[1].Created.After(list[2].Created) {
		t.Fatalf("not newest first with their clients: %+v", list)
	}
	if ua := list[1].UserAgent; len(ua) > 256 || !strings.HasPrefix(ua, "Mozilla/5.0 é") || !strings.HasSuffix(ua, "é") {
		t.Fatalf("user agent kept as %d bytes: %.40q...", len(ua), ua)
	}
	for i, info := range list {
		tok := tokens[2-i]
		if info.ID == "" || strings.Contains(tok, info.ID) || info.ID == sha(tok) || strings.Contains(sha(tok), info.ID) {
			t.Fatalf("session id %q gives away its token or key", info.ID)
		}
		if sess, _ := s.Get(ctx, tok); sess.ID() != info.ID {
			t.Fatalf("Session.ID %q, List says %q", sess.ID(), info.ID)
		}
	}

	// Last seen moves at most once a minute: a page view is not a write.
	seen := func(tok string) time.Time {
		sess, err := s.Get(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := s.List(ctx, "alice")
		for _, info := range l {
			if info.ID == sess.ID() {
				return info.LastSeen
			}
		}
		t.Fatal("session not listed")
		return time.Time{}
	}
	first := seen(tokens[0])
	now = now.Add(30 * time.Second)
	if got := seen(tokens[0]); !got.Equal(first) {
		t.Fatalf("last seen written again after 30 s: %v -> %v", first, got)
	}
	now = now.Add(31 * time.Second)
	if got := seen(tokens[0]); !got.Equal(now.Truncate(time.Millisecond)) {
		t.Fatalf("last seen after a minute: %v, want %v", got, now)
	}

	// Another admin cannot end alice's session by its id.
	if err := s.DeleteByID(ctx, "bob", list[0].ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("bob ended alice's session: %v", err)
	}
	if err := s.DeleteByID(ctx, "alice", "no-such-id"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := s.DeleteByID(ctx, "alice", list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, tokens[2]); !errors.Is(err, ErrNoSession) {
		t.Fatalf("ended by id but still valid: %v", err)
	}
	n, err := s.DeleteOthers(ctx, "alice", tokens[0])
	if err != nil || n != 1 {
		t.Fatalf("delete others: %d %v", n, err)
	}
	if _, err := s.Get(ctx, tokens[1]); !errors.Is(err, ErrNoSession) {
		t.Fatalf("another session survived: %v", err)
	}
	if _, err := s.Get(ctx, tokens[0]); err != nil {
		t.Fatalf("the kept session ended: %v", err)
	}
	if _, err := s.Get(ctx, bobs); err != nil {
		t.Fatalf("bob's session ended by alice: %v", err)
	}
	if l, _ := s.List(ctx, "alice"); len(l) != 1 || l[0].Addr != "192.0.2.1" {
		t.Fatalf("after ending the others: %+v", l)
	}
	if n, err := s.DeleteOthers(ctx, "alice", ""); err != nil || n != 1 {
		t.Fatalf("ending all: %d %v", n, err)
	}
	if l, _ := s.List(ctx, "alice"); len(l) != 0 {
		t.Fatalf("sessions left: %+v", l)
	}
}

// TestSessionIndexExpires: the per-user index forgets sessions that expired
// (List cleans them out) and expires itself like the sessions do.
func TestSessionIndexExpires(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	s := NewSessions(rdb)
	s.Idle = 100 * time.Millisecond
	var keys []string
	for range 3 {
		tok, err := s.Create(ctx, "carol", "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, sessionKey+sha(tok))
	}
	if ttl := rdb.PTTL(ctx, userSessionsKey("carol")).Val(); ttl <= 0 || ttl > s.Absolute {
		t.Fatalf("index TTL %v, want up to %v", ttl, s.Absolute)
	}
	if l, _ := s.List(ctx, "carol"); len(l) != 3 {
		t.Fatalf("list: %+v", l)
	}
	waitExpired(t, rdb, keys...)
	l, err := s.List(ctx, "carol")
	if err != nil || len(l) != 0 {
		t.Fatalf("idle sessions listed: %+v %v", l, err)
	}
	if n := rdb.SCard(ctx, userSessionsKey("carol")).Val(); n != 0 {
		t.Fatalf("%d expired entries left in the index", n)
	}
	// Past the absolute limit a session is gone from the list even if Redis
	// has not expired it yet.
	s.Idle = time.Hour
	tok, _ := s.Create(ctx, "carol", "192.0.2.1", "test")
	now := time.Now().Add(13 * time.Hour)
	s.now = func() time.Time { return now }
	if l, _ := s.List(ctx, "carol"); len(l) != 0 {
		t.Fatalf("a session past its absolute limit is listed: %+v", l)
	}
	if _, err := s.Get(ctx, tok); !errors.Is(err, ErrNoSession) {
		t.Fatalf("a session past its absolute limit works: %v", err)
	}
	if _, err := s.Create(ctx, strings.Repeat("x", 5<<20), "192.0.2.1", "test"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a session for a 5 MB user name: %v", err)
	}
}
