package access

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSignedEmbedURLs: a URL signed with a board's secret verifies until
// its exp, and nothing else does: another board's secret, a changed
// parameter, a signature that is not last, a missing or passed exp, a
// board without a secret, a rotated secret.
func TestSignedEmbedURLs(t *testing.T) {
	rdb := srv.Client(t)
	ctx := context.Background()
	e := NewEmbeds(rdb)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return now }
	if ok, err := e.Has(ctx, "class"); ok || err != nil {
		t.Fatalf("a new board has a secret: %v %v", ok, err)
	}
	secret, err := e.Rotate(ctx, "class")
	if err != nil || len(secret) != 64 {
		t.Fatalf("rotate: %q %v", secret, err)
	}
	path := "/embed/class"
	exp := fmt.Sprint(now.Add(time.Hour).Unix())
	q := "period=week&limit=10&exp=" + exp
	good := q + "&sig=" + SignEmbed(secret, path, q)
	until, ok := e.Verify(ctx, "class", path, good)
	if !ok || !until.Equal(now.Add(time.Hour).Truncate(time.Second)) {
		t.Fatalf("a good URL: %v %v", until, ok)
	}
	fp, err := e.Fingerprint(ctx, "class")
	if err != nil || fp == "" || strings.Contains(secret, fp) {
		t.Fatalf("fingerprint %q %v", fp, err)
	}
	other, _ := e.Rotate(ctx, "other")
	for name, raw := range map[string]string{
		"another board's secret": q + "&sig=" + SignEmbed(other, path, q),
		"a changed parameter":    strings.Replace(good, "limit=10", "limit=11", 1),
		"sig not last":           "sig=" + SignEmbed(secret, path, q) + "&" + q,
		"no sig":                 q,
		"a short sig":            q + "&sig=abc",
		"no exp":                 "limit=10&sig=" + SignEmbed(secret, path, "limit=10"),
		"two exps":               q + "&exp=1&sig=" + SignEmbed(secret, path, q+"&exp=1"),
		"another path":           q + "&sig=" + SignEmbed(secret, "/embed/other", q),
	} {
		if _, ok := e.Verify(ctx, "class", path, raw); ok {
			t.Errorf("%s verifies", name)
		}
	}
	if _, ok := e.Verify(ctx, "none", "/embed/none", good); ok {
		t.Error("a board without a secret verifies")
	}
	now = now.Add(time.Hour)
	if _, ok := e.Verify(ctx, "class", path, good); ok {
		t.Error("a URL at its exp verifies")
	}
	now = now.Add(-time.Hour)
	if _, err := e.Rotate(ctx, "class"); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Verify(ctx, "class", path, good); ok {
		t.Error("a URL signed with the old secret verifies")
	}
	if fp2, _ := e.Fingerprint(ctx, "class"); fp2 == fp {
		t.Error("the fingerprint did not change with the secret")
	}
	if err := e.Drop(ctx, "class"); err != nil {
		t.Fatal(err)
	}
	if fp, _ := e.Fingerprint(ctx, "class"); fp != "" {
		t.Errorf("a dropped secret's fingerprint %q", fp)
	}
}
