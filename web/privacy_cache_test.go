package web_test

import (
	"testing"
	"time"

	"podium/board"
	"podium/web/request"
)

// TestWholeViewsAreNotCached: on a public board with a privacy mode, an
// answer that shows more than the mode leaves to everyone (a viewer's or a
// key's whole view, a personal link's own page) is Cache-Control: private,
// no-store, as a private board's are: a shared cache in front of the site
// would otherwise keep every pupil's name and score, or one pupil's page,
// and hand it to the next reader of the address. The shared view stays
// cacheable.
func TestWholeViewsAreNotCached(t *testing.T) {
	f := classFixture(t, board.Public)
	_, token, err := f.Admin.Links.CreatePersonal(t.Context(), classID, f.MustBoard(t, classID).Created, "zz-dan", "Daniel Dodo", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	link := []string{"Cookie", request.LinkCookie(classID) + "=" + token}
	key := []string{"Authorization", "Bearer " + f.Key("reader", classID)}
	viewer := viewerOf(t, f)
	for _, c := range []struct {
		who, path string
		hdr       []string
	}{
		{"a viewer", "/b/" + classID, viewer},
		{"a viewer", "/b/" + classID + "/teams/red", viewer},
		{"a viewer", "/", viewer},
		{"a key", "/api/v1/boards/" + classID + "/entries", key},
		{"dan's link", "/b/" + classID, link},
		{"dan's link", "/b/" + classID + "/m/zz-dan", link},
		{"dan's link", "/api/v1/boards/" + classID + "/members/zz-dan", link},
	} {
		if res, _ := f.Get(c.path, c.hdr...); res.StatusCode != 200 || res.Header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s for %s: %d, Cache-Control %q", c.path, c.who, res.StatusCode, res.Header.Get("Cache-Control"))
		}
	}
	for _, path := range []string{"/b/" + classID, "/api/v1/boards/" + classID + "/entries", "/"} {
		if res, _ := f.Get(path); res.Header.Get("Cache-Control") != "" {
			t.Errorf("%s for anyone: Cache-Control %q", path, res.Header.Get("Cache-Control"))
		}
	}
}
