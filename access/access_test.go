package access

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"podium/internal/redistest"
)

var srv *redistest.Server

func TestMain(m *testing.M) { redistest.Main(m, &srv) }

// waitExpired waits, with a deadline, until Redis has let every key go:
// idle sessions end by Redis's clock, which the test cannot move.
func waitExpired(t *testing.T, rdb redis.UniversalClient, keys ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := rdb.Exists(context.Background(), keys...).Result() // an expired key is gone when read
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %q still there after their expiry", n, keys)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAccounts(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	rdb.FlushDB(ctx)
	a := NewAccounts(rdb, bcrypt.MinCost)
	if err := a.Create(ctx, "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, "alice", "another password"); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate: %v", err)
	}
	for _, bad := range [][2]string{{"Alice", "long enough pw"}, {"bob", "short"}, {"", "long enough pw"}, {"b b", "long enough pw"}} {
		if err := a.Create(ctx, bad[0], bad[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("create %q: %v", bad[0], err)
		}
	}
	if err := a.Verify(ctx, "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if err := a.Verify(ctx, "alice", "wrong"); !errors.Is(err, ErrBadCredentials) {
		t.Fatal(err)
	}
	if err := a.Verify(ctx, "nobody", "whatever"); !errors.Is(err, ErrBadCredentials) {
		t.Fatal(err)
	}
	if hash, _ := rdb.HGet(ctx, adminsKey, "alice").Result(); !strings.HasPrefix(hash, "$2") {
		t.Fatalf("not a bcrypt hash: %q", hash)
	}
	if err := a.Delete(ctx, "alice"); !errors.Is(err, ErrLastAdmin) {
		t.Fatalf("deleting the last admin: %v", err)
	}
	a.Create(ctx, "bob", "bob's password!")
	if err := a.Delete(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if users, _ := a.List(ctx); !slices.Equal(users, []Account{{Name: "bob", SiteAdmin: true, Password: true}}) {
		t.Fatalf("users %v", users)
	}
}

// A board user signs in like a site admin but is none; the last site admin
// can be neither removed nor made a board user, whatever board users exist.
func TestAccountKinds(t *testing.T) {
	rdb := srv.ClientDB(t, 3)
	ctx := t.Context()
	rdb.FlushDB(ctx)
	a := NewAccounts(rdb, bcrypt.MinCost)
	if err := a.Create(ctx, "root", "root's password"); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateBoardUser(ctx, "ta", "assistant's password"); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateBoardUser(ctx, "root", "another password"); !errors.Is(err, ErrExists) {
		t.Fatalf("a board user over a site admin: %v", err)
	}
	if err := a.Verify(ctx, "ta", "assistant's password"); err != nil {
		t.Fatalf("a board user signs in with their password: %v", err)
	}
	if err := a.Verify(ctx, "ta", "board:assistant's password"); !errors.Is(err, ErrBadCredentials) {
		t.Fatal(err)
	}
	if acc, err := a.Get(ctx, "ta"); err != nil || acc.SiteAdmin {
		t.Fatalf("ta: %+v %v", acc, err)
	}
	if _, err := a.Get(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	for _, try := range []func() error{
		func() error { return a.Delete(ctx, "root") },
		func() error { return a.SetSiteAdmin(ctx, "root", false) },
	} {
		if err := try(); !errors.Is(err, ErrLastAdmin) {
			t.Fatalf("the last site admin went: %v", err)
		}
	}
	before, _ := a.Stamp(ctx, "ta")
	if err := a.SetSiteAdmin(ctx, "ta", true); err != nil {
		t.Fatal(err)
	}
	if after, _ := a.Stamp(ctx, "ta"); after == before {
		t.Fatal("the stamp stayed when the kind changed")
	}
	if err := a.Verify(ctx, "ta", "assistant's password"); err != nil {
		t.Fatalf("the password stays with the kind: %v", err)
	}
	if err := a.SetSiteAdmin(ctx, "root", false); err != nil {
		t.Fatalf("two site admins, one may go: %v", err)
	}
	if users, _ := a.List(ctx); !slices.Equal(users, []Account{{Name: "root", Password: true}, {Name: "ta", SiteAdmin: true, Password: true}}) {
		t.Fatalf("users %v", users)
	}
	if err := a.SetSiteAdmin(ctx, "nobody", true); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

// A role counts on the board it was given on, not on a board made again
// under the same id; taking it away counts at once on this replica.
func TestGrants(t *testing.T) {
	rdb := srv.ClientDB(t, 4)
	ctx := t.Context()
	rdb.FlushDB(ctx)
	g := NewGrants(rdb)
	created := time.UnixMilli(1_767_225_600_123)
	if err := g.Set(ctx, "ta", "class", Scorekeeper, created); err != nil {
		t.Fatal(err)
	}
	if r, err := g.On(ctx, "ta", "class", created); err != nil || r != Scorekeeper {
		t.Fatalf("role %v %v", r, err)
	}
	if r, _ := g.On(ctx, "ta", "class", created.Add(time.Millisecond)); r != NoRole {
		t.Fatalf("a role on an earlier board of the id counted: %v", r)
	}
	if r, _ := g.On(ctx, "ta", "other", created); r != NoRole {
		t.Fatalf("a role on another board: %v", r)
	}
	if err := g.Set(ctx, "ta", "class", Viewer, created); err != nil {
		t.Fatal(err)
	}
	if r, _ := g.On(ctx, "ta", "class", created); r != Viewer {
		t.Fatalf("after a change: %v", r)
	}
	_ = g.Set(ctx, "bo", "class", Owner, created)
	hs, err := g.Holders(ctx, "class", []string{"ann", "bo", "ta"})
	if err != nil || len(hs) != 2 || hs[0].User != "bo" || hs[0].Role != Owner || hs[1].User != "ta" {
		t.Fatalf("holders %+v %v", hs, err)
	}
	if ok, _ := g.Remove(ctx, "ta", "class"); !ok {
		t.Fatal("not removed")
	}
	if r, _ := g.On(ctx, "ta", "class", created); r != NoRole {
		t.Fatalf("after removal: %v", r)
	}
	rdb.HSet(ctx, userRolesKey("bo"), "odd", "superuser 1")
	if m, _ := g.Of(ctx, "bo"); len(m) != 1 || m["class"].Role != Owner {
		t.Fatalf("an unreadable role counted: %+v", m)
	}
	if err := g.DropBoard(ctx, "class", []string{"bo", "ta"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := g.On(ctx, "bo", "class", created); r != NoRole {
		t.Fatalf("after the board went: %v", r)
	}
	for _, s := range []string{"viewer", "scorekeeper", "owner"} {
		if r, err := ParseRole(s); err != nil || r.String() != s {
			t.Fatal(s, r, err)
		}
	}
	if _, err := ParseRole("admin"); !errors.Is(err, ErrInvalid) {
		t.Fatal(err)
	}
}

func TestSessions(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	s := NewSessions(rdb)
	now := time.Now()
	s.now = func() time.Time { return now }
	token, err := s.Create(ctx, "alice", "192.0.2.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Get(ctx, token)
	if err != nil || sess.User != "alice" {
		t.Fatal(sess, err)
	}
	if !sess.CheckCSRF(sess.CSRF()) || sess.CheckCSRF("") || sess.CheckCSRF(strings.Repeat("0", 64)) {
		t.Fatal("csrf check")
	}
	other, _ := s.Create(ctx, "alice", "192.0.2.1", "test")
	if o, _ := s.Get(ctx, other); o.CSRF() == sess.CSRF() {
		t.Fatal("two sessions share a CSRF token")
	}
	if n, _ := rdb.Keys(ctx, sessionKey+"*").Result(); slices.ContainsFunc(n, func(k string) bool { return strings.Contains(k, token) }) {
		t.Fatal("the raw token is stored")
	}
	now = now.Add(13 * time.Hour) // past the absolute limit
	if _, err := s.Get(ctx, token); !errors.Is(err, ErrNoSession) {
		t.Fatalf("absolute expiry: %v", err)
	}
	s.Idle = 100 * time.Millisecond
	now = time.Now()
	short, _ := s.Create(ctx, "bob", "192.0.2.1", "test")
	waitExpired(t, rdb, sessionKey+sha(short))
	if _, err := s.Get(ctx, short); !errors.Is(err, ErrNoSession) {
		t.Fatalf("idle expiry: %v", err)
	}
	if err := s.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, other); !errors.Is(err, ErrNoSession) {
		t.Fatal("logged out session still valid")
	}
}

func TestRateLimit(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	l := NewLimiter(rdb)
	now := time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC)
	l.now = func() time.Time { return now }
	for i := range 3 {
		if ok, _, _ := l.Allow(ctx, "key:t", 3); !ok {
			t.Fatalf("request %d refused", i)
		}
	}
	// 3 a minute: one more every 20 s, and a burst of 3 at most.
	ok, retry, _ := l.Allow(ctx, "key:t", 3)
	if ok || retry != 20*time.Second {
		t.Fatalf("4th request: %v retry %v", ok, retry)
	}
	if ok, _, _ := l.Allow(ctx, "key:other", 3); !ok {
		t.Fatal("another scope was limited by this one")
	}
	now = now.Add(20 * time.Second)
	if ok, _, _ := l.Allow(ctx, "key:t", 3); !ok {
		t.Fatal("refused after waiting as told")
	}
	if ok, _, _ := l.Allow(ctx, "key:t", 3); ok {
		t.Fatal("a second request in the same 20 s allowed")
	}
	// No Redis key is written for request rates.
	if n, _ := rdb.Keys(ctx, "podium:rl:*").Result(); len(n) != 0 {
		t.Fatalf("rate keys in Redis: %v", n)
	}
}

func TestAPIKeys(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	k := NewKeys(rdb)
	key, secret, err := k.Create(ctx, "CI bot", "chess", false)
	if err != nil || !strings.HasPrefix(secret, "pdm_"+key.ID+"_") {
		t.Fatal(key, secret, err)
	}
	got, err := k.Authenticate(ctx, secret)
	if err != nil || got.Name != "CI bot" || !got.Allows("chess") || got.Allows("golf") || got.LastUsed.IsZero() {
		t.Fatalf("authenticate: %+v %v", got, err)
	}
	for _, bad := range []string{"", "pdm_", "pdm_" + key.ID + "_wrong", secret + "x", "Bearer " + secret, strings.Replace(secret, key.ID, "zzzzzzzz", 1)} {
		if _, err := k.Authenticate(ctx, bad); !errors.Is(err, ErrBadKey) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
	if stored, _ := rdb.HGetAll(ctx, apiKeyKey+key.ID).Result(); strings.Contains(strings.Join(mapValues(stored), " "), secret) {
		t.Fatal("the secret is stored")
	}
	if list, _ := k.List(ctx); len(list) == 0 || list[0].ID != key.ID {
		t.Fatalf("list %v", list)
	}
	// A verified key is trusted for KeyCacheTTL without asking Redis; a key
	// revoked elsewhere (another replica) stops working once that has passed.
	now := time.Now()
	k.now = func() time.Time { return now }
	other := NewKeys(rdb)
	if _, err := other.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	cc := &countHook{}
	rdb.AddHook(cc)
	if _, err := other.Authenticate(ctx, secret); err != nil || cc.n.Load() != 0 {
		t.Fatalf("a cached key asked Redis %d times: %v", cc.n.Load(), err)
	}
	if _, err := k.Revoke(ctx, key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Authenticate(ctx, secret); !errors.Is(err, ErrBadKey) {
		t.Fatal("revoked key still works on the replica that revoked it")
	}
	other.now = func() time.Time { return time.Now().Add(KeyCacheTTL) }
	if _, err := other.Authenticate(ctx, secret); !errors.Is(err, ErrBadKey) {
		t.Fatal("revoked key still works on another replica after KeyCacheTTL")
	}
	if _, _, err := k.Create(ctx, " ", "", false); !errors.Is(err, ErrInvalid) {
		t.Fatal("blank name accepted")
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// countHook counts commands sent to Redis.
type countHook struct{ n atomic.Int64 }

func (c *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}
