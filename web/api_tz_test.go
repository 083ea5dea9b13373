package web

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
)

// TestAPICreatesBoardsInTheDefaultZone: a board made over the API without a
// time zone gets the server's DEFAULT_TZ, as the console's form does; one
// that names a zone keeps it.
func TestAPICreatesBoardsInTheDefaultZone(t *testing.T) {
	f := newAPIFixture(t, 1000, 1000)
	s := New(Options{Store: f.store, Admin: f.admin, DefaultTZ: "Asia/Tokyo", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptest.NewServer(s)
	t.Cleanup(h.Close)
	f.api = h
	key := f.key("ops", "")
	for body, want := range map[string]string{
		`{"id":"darts","title":"Darts"}`:                          "Asia/Tokyo",
		`{"id":"golf","title":"Golf","time_zone":"Europe/Paris"}`: "Europe/Paris",
	} {
		status, got, _ := f.call("POST", "/api/v1/boards", key, body)
		if status != 201 || got["time_zone"] != want {
			t.Errorf("%s: %d, time zone %v, want %s", body, status, got["time_zone"], want)
		}
	}
}
