package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"podium/access"
	"podium/internal/webtest"
)

// TestSignedEmbed: a private board's widget opens with a URL signed with its
// embed secret until the URL's exp; a URL changed after signing, expired,
// unsigned or signed with an old secret reads as an unknown board; the
// widget's live socket works with the ticket its page hands it, and ends
// when the secret is made anew.
func TestSignedEmbed(t *testing.T) {
	f := visibilityFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	secret, err := f.Admin.Embeds.Rotate(ctx, secretID)
	if err != nil {
		t.Fatal(err)
	}
	path := "/embed/" + secretID
	sign := func(secret, q string) string { return path + "?" + q + "&sig=" + access.SignEmbed(secret, path, q) }
	exp := fmt.Sprint(time.Now().Add(time.Hour).Unix())
	good := sign(secret, "limit=5&exp="+exp)
	res, body := f.Get(good)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, secretName) {
		t.Fatalf("signed widget: %d %s", res.StatusCode, webtest.Excerpt(body))
	}
	if !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
		t.Errorf("signed widget's Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	_, unknown := f.Get(strings.ReplaceAll(good, secretID, ghostID))
	for name, u := range map[string]string{
		"unsigned":          path + "?limit=5&exp=" + exp,
		"changed after":     strings.Replace(good, "limit=5", "limit=9", 1),
		"expired":           sign(secret, "limit=5&exp="+fmt.Sprint(time.Now().Add(-time.Second).Unix())),
		"without exp":       sign(secret, "limit=5"),
		"another secret":    sign(strings.Repeat("ab", 32), "limit=5&exp="+exp),
		"sig not last":      path + "?sig=" + access.SignEmbed(secret, path, "limit=5&exp="+exp) + "&limit=5&exp=" + exp,
		"on the board page": "/b/" + secretID + strings.TrimPrefix(good, path),
	} {
		res, body := f.Get(u)
		if res.StatusCode != http.StatusNotFound || strings.Contains(body, secretName) {
			t.Errorf("%s: %d %s", name, res.StatusCode, webtest.Excerpt(body))
		}
		if name != "on the board page" && strings.ReplaceAll(body, secretID, ghostID) != unknown {
			t.Errorf("%s: the refusal differs from an unknown board's", name)
		}
	}
	// The live socket: the ticket from the page opens it; without, nothing.
	_, page := f.Get(good)
	i := strings.Index(page, "ticket=")
	if i < 0 {
		t.Fatalf("the signed widget hands its socket no ticket: %s", webtest.Excerpt(page))
	}
	j := strings.Index(page, "data-live=\"")
	if j < 0 {
		t.Fatal("the signed widget has no live query")
	}
	query := page[j+len("data-live=\""):]
	query = strings.ReplaceAll(query[:strings.IndexByte(query, '"')], "&amp;", "&")
	base := "ws" + strings.TrimPrefix(f.URL, "http") + "/live?"
	ticket := query[strings.Index(query, "ticket=")+len("ticket="):]
	for name, q := range map[string]string{
		"a forged ticket":             strings.Replace(query, ticket, "forged.123.abc", 1),
		"the ticket on another page":  strings.Replace(query, "offset=0", "offset=50", 1),
		"the ticket on a longer page": strings.Replace(query, "limit=5", "limit=100", 1),
	} {
		if q == query {
			t.Fatalf("%s: the query %q did not change", name, query)
		}
		if _, res, err := websocket.Dial(ctx, base+q, nil); err == nil || res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %v %v", name, err, res)
		}
	}
	conn, _, err := websocket.Dial(ctx, base+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if _, first, err := conn.Read(ctx); err != nil || !strings.Contains(string(first), secretName) {
		t.Fatalf("first frame: %v %q", err, first)
	}
	if _, err := f.Admin.Embeds.Rotate(ctx, secretID); err != nil {
		t.Fatal(err)
	}
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("socket ended with %v, want 1008 once the secret changed", err)
			}
			break
		}
	}
	if res, _ := f.Get(good); res.StatusCode != http.StatusNotFound {
		t.Errorf("a URL signed with the old secret: %d", res.StatusCode)
	}
}
