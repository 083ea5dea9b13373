package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"podium/board"
	"podium/hooks"
)

// TestWebhookFromTheConsole registers a webhook in the console against a
// local HTTPS receiver, sends a test event and a real one (a new leader),
// and sees both deliveries listed with their status codes; the receiver
// checks each signature with the secret the console showed once. The page
// passes axe-core and fits a phone, light and dark.
func TestWebhookFromTheConsole(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	a.board(board.Board{ID: "arcade", Title: "Neon Arcade", Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly},
		"ann", 500, "bob", 300)

	var mu sync.Mutex
	var secret string
	got := map[string]bool{} // event type -> signature verified
	recv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.Header.Get(hooks.HeaderEvent)] = hooks.Verify(secret, r.Header.Get(hooks.HeaderTimestamp), r.Header.Get(hooks.HeaderSignature), body, time.Now(), 5*time.Minute) && json.Valid(body)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(recv.Close)
	client := hooks.NewClient(true, 2*time.Second)
	client.Transport.(*http.Transport).TLSClientConfig = recv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	rdb := a.store.Client()
	reg := hooks.NewRegistry(rdb, nil)
	runner := hooks.NewRunner(rdb, a.store, reg, hooks.Options{Tick: 100 * time.Millisecond, Client: client,
		Timeout: 2 * time.Second, RetryFirst: 3 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); runner.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })

	axe, _ := axeSource(t)
	page := tourPage(t, variant{width: 1280}, axe)
	signIn(t, page, a, adminPassword)
	must(t, page.WaitForURL(a.URL+"/admin"))
	open(t, page, a.URL+"/admin/boards/arcade", 200)
	must(t, page.GetByTestId("hooks-link").Click())
	must(t, expect.Locator(page.GetByTestId("no-hooks")).ToBeVisible())

	// Plain HTTP is refused inline, with the value kept.
	must(t, page.Locator("#h-url").Fill("http://example.com/hook"))
	must(t, page.GetByTestId("add-hook").Click())
	must(t, expect.Locator(page.GetByTestId("error-h-url")).ToContainText("https://"))
	must(t, expect.Locator(page.GetByTestId("error-events")).ToBeVisible())
	must(t, expect.Locator(page.Locator("#h-url")).ToHaveValue("http://example.com/hook"))

	must(t, page.Locator("#h-url").Fill(recv.URL+"/podium"))
	must(t, page.GetByLabel("New leader").Check())
	must(t, page.Locator("#h-top").Fill("3"))
	must(t, page.GetByTestId("add-hook").Click())
	s, err := page.GetByTestId("new-secret").InputValue()
	must(t, err)
	if !regexp.MustCompile(`^whsec_`).MatchString(s) {
		t.Fatalf("secret shown: %q", s)
	}
	mu.Lock()
	secret = s
	mu.Unlock()

	// The test event, by keyboard: focus the button and press Enter.
	must(t, page.GetByTestId("hook-test").Focus())
	must(t, page.Keyboard().Press("Enter"))
	if err := expect.Locator(page.GetByTestId("flash")).ToContainText("Test event queued"); err != nil {
		txt, _ := page.Locator("main").InnerText()
		t.Fatalf("%v\n%s", err, txt)
	}
	waitForDelivery(t, page, reg, "ping")

	// A new leader on the board: found by the runner, delivered, listed.
	a.scores("arcade", a.store, "bob", 900)
	waitForDelivery(t, page, reg, "leader.changed")
	must(t, expect.Locator(page.GetByTestId("delivery-code").First()).ToHaveText("202"))
	must(t, expect.Locator(page.GetByTestId("delivery-result").First()).ToHaveText("delivered"))
	mu.Lock()
	if !got["ping"] || !got["leader.changed"] {
		t.Errorf("receiver: %v (event -> signature verified)", got)
	}
	mu.Unlock()

	for _, v := range []variant{{1280, false}, {1280, true}, {390, false}, {390, true}} {
		show(t, page, v)
		if vs := runAxe(t, page); len(vs) > 0 {
			t.Errorf("webhooks page (%s): %d axe-core rule(s) failed:\n%s", v, len(vs), describe(vs))
			snap(t, page, v.String())
		}
		if w := measureWidth(t, page); w.Scroll > w.Viewport {
			t.Errorf("webhooks page (%s) is %d px wide in %d: widest %s", v, w.Scroll, w.Viewport, w.Widest)
			snap(t, page, v.String())
		}
	}
}

// waitForDelivery waits until a delivery of type ev is in the arcade hook's
// log (where the page reads it), then reloads the webhooks page and finds
// it listed: one reload, not one per poll.
func waitForDelivery(t *testing.T, page playwright.Page, reg *hooks.Registry, ev string) {
	t.Helper()
	logged := func() bool {
		hs, err := reg.List(context.Background(), "arcade")
		must(t, err)
		for _, h := range hs {
			as, err := reg.Attempts(context.Background(), "arcade", h.ID)
			must(t, err)
			for _, a := range as {
				if string(a.Type) == ev {
					return true
				}
			}
		}
		return false
	}
	for deadline := time.Now().Add(30 * time.Second); !logged(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s delivery made", ev)
		}
	}
	_, err := page.Reload()
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("delivery").Filter(playwright.LocatorFilterOptions{HasText: ev}).First()).ToBeVisible())
}
