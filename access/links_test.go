package access

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestShareLinks: a link is made with a token shown once and kept hashed,
// opens its board until it expires or is revoked, and lists with its last
// use; tokens that are not live links are ErrBadLink.
func TestShareLinks(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	l := NewLinks(rdb)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	since := now.Add(-time.Hour)

	link, token, err := l.Create(ctx, "class", since, " Class 4B ", "alice", now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, "pvl_"+link.ID+"_") || len(token) < 4+len(link.ID)+1+43 || link.Name != "Class 4B" {
		t.Fatalf("link %+v, token %q", link, token)
	}
	stored, err := rdb.HGetAll(ctx, linkKey+link.ID).Result()
	if err != nil || strings.Contains(strings.Join(mapValues(stored), " "), token[len("pvl_"+link.ID+"_"):]) {
		t.Fatalf("the token's secret is stored: %v %v", stored, err)
	}
	got, err := l.Authenticate(ctx, token)
	if err != nil || got.Board != "class" || !got.Since.Equal(since) || got.By != "alice" {
		t.Fatalf("authenticate: %+v %v", got, err)
	}
	list, err := l.List(ctx, "class")
	if err != nil || len(list) != 1 || list[0].LastUsed.IsZero() {
		t.Fatalf("list: %+v %v", list, err)
	}
	for _, bad := range []string{"", "pvl", "pvl__x", "pvl_" + link.ID + "_wrong", token + "x", strings.Repeat("a", 300), "pdm_" + link.ID + "_x"} {
		if _, err := l.Authenticate(ctx, bad); !errors.Is(err, ErrBadLink) {
			t.Errorf("%q: %v, want ErrBadLink", bad, err)
		}
	}
	now = now.Add(25 * time.Hour) // past its expiry, and the cache's
	if _, err := l.Authenticate(ctx, token); !errors.Is(err, ErrBadLink) {
		t.Errorf("expired link: %v", err)
	}

	now = now.Add(-25 * time.Hour)
	if _, err := l.Revoke(ctx, "other", link.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("revoke through another board: %v", err)
	}
	if _, err := l.Revoke(ctx, "class", link.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Authenticate(ctx, token); !errors.Is(err, ErrBadLink) {
		t.Errorf("revoked link: %v", err)
	}
	if list, _ := l.List(ctx, "class"); len(list) != 0 {
		t.Errorf("revoked link still listed: %+v", list)
	}

	for _, bad := range []string{"", strings.Repeat("x", 65), "tab\there"} {
		if _, _, err := l.Create(ctx, "class", since, bad, "alice", time.Time{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("name %q: %v", bad, err)
		}
	}
	if _, _, err := l.Create(ctx, "class", since, "past", "alice", now.Add(-time.Minute)); !errors.Is(err, ErrInvalid) {
		t.Errorf("an expiry in the past: %v", err)
	}
	for range 3 {
		if _, _, err := l.Create(ctx, "class", since, "many", "alice", time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := l.RevokeAll(ctx, "class"); err != nil || n != 3 {
		t.Errorf("revoke all: %d %v", n, err)
	}
}

// TestPersonalLinks: a personal link is a share link for one member: its
// token (128 bits in 26 lower-case characters) authenticates to the member,
// it is listed apart from the share links, revoked like one, and dropped
// with the board's links; a share link stored before personal links read
// as one for no member.
func TestPersonalLinks(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	l := NewLinks(rdb)
	since := time.Now().Add(-time.Hour)
	share, _, err := l.Create(ctx, "pupils", since, "Class 4B", "alice", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	link, token, err := l.CreatePersonal(ctx, "pupils", since, "zoe", "Zoë Liddell", "alice", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimPrefix(token, "pvl_"+link.ID+"_")
	if len(secret) != 26 || strings.ToLower(secret) != secret || link.Member != "zoe" || link.Name != "Zoë Liddell" {
		t.Fatalf("personal link %+v, token %q", link, token)
	}
	got, err := l.Authenticate(ctx, token)
	if err != nil || got.Member != "zoe" || got.Board != "pupils" {
		t.Fatalf("authenticate: %+v %v", got, err)
	}
	if shares, _ := l.List(ctx, "pupils"); len(shares) != 1 || shares[0].ID != share.ID || shares[0].Member != "" {
		t.Fatalf("share links: %+v", shares)
	}
	if mine, _ := l.ListPersonal(ctx, "pupils"); len(mine) != 1 || mine[0].Member != "zoe" {
		t.Fatalf("personal links: %+v", mine)
	}
	if _, _, err := l.CreatePersonal(ctx, "pupils", since, "", "", "alice", time.Time{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a personal link for no member: %v", err)
	}
	long, _, err := l.CreatePersonal(ctx, "pupils", since, strings.Repeat("m", 100), "", "alice", time.Time{})
	if err != nil || len([]rune(long.Name)) != 64 {
		t.Errorf("a long id as the name: %q %v", long.Name, err)
	}
	if _, err := l.Revoke(ctx, "pupils", link.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Authenticate(ctx, token); !errors.Is(err, ErrBadLink) {
		t.Errorf("revoked personal link: %v", err)
	}
	if n, err := l.RevokeAll(ctx, "pupils"); err != nil || n != 2 {
		t.Errorf("revoke all: %d %v", n, err)
	}
	if n, _ := rdb.Exists(ctx, linksKey+"pupils", personalKey+"pupils").Result(); n != 0 {
		t.Errorf("%d link index sets left", n)
	}
}
