package web_test

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"podium/internal/webtest"
	"podium/web/request"
)

// TestTenThousandGuesses: 10,000 guessed tokens (share and personal link
// tokens in a link cookie, share link addresses, console sessions, API
// keys) get exactly the answer an unknown board gets, or, for a link's
// address, the answer every link that does not work gets; none reads
// the private board, and none leaves anything in Redis.
func TestTenThousandGuesses(t *testing.T) {
	f := visibilityFixture(t)
	ctx := t.Context()
	keysBefore, err := f.Redis.DBSize(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	_, unknown := f.Get("/b/" + ghostID)
	_, deadLink := f.Get("/s/pvl_abcdefgh_" + strings.Repeat("x", 43))
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	guess := func(i int) (path, cookie, auth, want string) {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		secret := base64.RawURLEncoding.EncodeToString(b)
		id := fmt.Sprintf("%08x", i)
		switch i % 5 {
		case 0:
			return "/b/" + secretID, request.LinkCookie(secretID) + "=pvl_" + id + "_" + secret, "", unknown
		case 1:
			return "/b/" + secretID, request.LinkCookie(secretID) + "=pvl_" + id + "_" + strings.ToLower(secret[:26]), "", unknown
		case 2:
			return "/b/" + secretID, request.SessionCookie + "=" + secret, "", unknown
		case 3:
			return "/b/" + secretID, "", "Bearer pdm_" + id + "_" + secret, unknown
		}
		return "/s/pvl_" + id + "_" + secret, "", "", deadLink
	}
	const n, workers = 10_000, 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := 0
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				path, cookie, auth, want := guess(i)
				req, _ := http.NewRequestWithContext(ctx, "GET", f.URL+path, nil)
				if cookie != "" {
					req.Header.Set("Cookie", cookie)
				}
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				res, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				got := strings.ReplaceAll(string(body), secretID, ghostID)
				if path != "/b/"+secretID {
					got = string(body)
				}
				if res.StatusCode != http.StatusNotFound || got != want {
					mu.Lock()
					if bad++; bad <= 3 {
						t.Errorf("guess %d (%s): %d %q", i, path, res.StatusCode, webtest.Excerpt(string(body)))
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if bad > 0 {
		t.Fatalf("%d of %d guesses answered otherwise than an unknown board", bad, n)
	}
	if keysAfter, _ := f.Redis.DBSize(ctx).Result(); keysAfter != keysBefore {
		t.Errorf("guessing left keys: %d before, %d after", keysBefore, keysAfter)
	}
}
