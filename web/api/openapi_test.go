package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/hooks"
	"podium/internal/webtest"
	"podium/redisstore"
	"podium/web/request"
)

// TestOpenAPIResponses sends real requests for every operation of the API
// document to the real server on a private Redis, and checks each answer
// (status, documented headers, body) against the document with kin-openapi.
// Every status an operation documents must be seen at least once, and the
// schemas refuse fields they do not name, so a handler that sends a field or
// a status the document does not describe fails here, and so does a document
// that promises what no handler sends.
func TestOpenAPIResponses(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime}},
		map[string]float64{"ann": 10, "bob": 7, "cat": 7, "dan": 3})
	f.Board(board.Board{ID: "frozen", Title: "Frozen", Periods: []board.Kind{board.Weekly, board.AllTime}}, nil)
	f.Board(board.Board{ID: "raw", Title: "Raw", TieBreak: board.ByMember}, nil)
	f.Board(board.Board{ID: "ended", Title: "Ended", ClosesAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil)
	f.Board(board.Board{ID: "league", Title: "League", Teams: board.TeamsSum}, nil)
	f.Board(board.Board{ID: "cup", Title: "Cup", Periods: []board.Kind{board.Weekly}, Teams: board.TeamsSum}, nil)
	for _, sub := range []board.Submission{{Member: "ann", Team: "red", Score: 4}, {Member: "bob", Team: "blue", Score: 6}, {Member: "cat", Team: "red", Score: 2}} {
		if _, err := f.Store.Submit(context.Background(), "league", sub, board.Author{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	rdb := webtest.Redis(t)
	// A closed week of chess (and of cup's teams) whose keys expired to an
	// archive this server does not have (410 to read, 409 to change), frozen's current week
	// moved to the archive under a writer with a late clock (409 to write),
	// and an infinite score an outside writer stored (exported as text).
	for _, err := range []error{
		rdb.HSet(ctx, redisstore.ArchiveState("chess"), "week:2026-W50", "0 1"+redisstore.ExpiredMark).Err(),
		rdb.HSet(ctx, redisstore.ArchiveState("cup"), "week:2026-W50", "0 1"+redisstore.ExpiredMark).Err(),
		rdb.HSet(ctx, redisstore.ArchiveState("frozen"), "week:2027-W01", "0 1"+redisstore.ExpiredMark).Err(),
		rdb.ZAdd(ctx, redisstore.ZSetKey("raw", board.Period{Kind: board.AllTime}), redis.Z{Score: math.Inf(1), Member: "far"}).Err(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	all, chessOnly := f.Key("ops", ""), f.Key("chess bot", "chess")
	_, reader, err := f.Admin.Keys.Create(ctx, "chess reader", "chess", true)
	if err != nil {
		t.Fatal(err)
	}
	// A board with a privacy mode (only the top place, pseudonyms), and a
	// personal link of its second member.
	class := f.Board(board.Board{ID: "class", Title: "Class", Names: board.Pseudonyms, TopOnly: 1}, map[string]float64{"ann": 3, "bob": 2})
	_, bobsLink, err := f.Admin.Links.CreatePersonal(ctx, "class", class.Created, "bob", "", "test", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	bob := []string{"Cookie", request.LinkCookie("class") + "=" + bobsLink}
	// Webhooks: one to delete, one to test, and a board with its ten.
	chess, _ := f.Store.Board(ctx, "chess")
	raw, _ := f.Store.Board(ctx, "raw")
	hookIn := hooks.Input{URL: "https://example.com/h", Events: []hooks.Event{hooks.NewLeader}, AllPeriods: true, Top: 3}
	gone, err1 := f.Admin.Hooks.Create(ctx, &chess, hookIn, "test")
	ping, err2 := f.Admin.Hooks.Create(ctx, &chess, hookIn, "test")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	for range hooks.MaxHooks {
		if _, err := f.Admin.Hooks.Create(ctx, &raw, hookIn, "test"); err != nil {
			t.Fatal(err)
		}
	}
	v := newOpenAPIValidator(t, f.URL)
	_, first, _ := f.Call("GET", "/api/v1/boards/chess/entries?period=all&limit=2", "", "")
	next, _ := first["next"].(string)
	big := `{"scores": [` + strings.Repeat(`{"member":"x","score":1},`, 50_000) + `{"member":"x","score":1}]}`
	long := strings.Repeat("m", 129)
	sprint := `{"id":"sprint","title":"100 m","format":{"type":"duration"},"order":"lower","periods":["week","all"],"rank_style":"dense","fields":[{"name":"wind","desc":true}]}`
	tests := []apiCase{
		{"document", "GET", "/openapi.json", "", "", nil, 200},

		{"boards", "GET", "/boards", "", "", nil, 200},
		{"create with every option", "POST", "/boards", all, sprint, nil, 201},
		{"create decimal", "POST", "/boards", all, `{"id":"cash","title":"Cash","format":{"type":"decimal","decimals":2,"prefix":"$"},"cap":1,"retention":0}`, nil, 201},
		{"create malformed", "POST", "/boards", all, `{"id":`, nil, 400},
		{"create unknown field", "POST", "/boards", all, `{"id":"x","title":"X","colour":"red"}`, nil, 400},
		{"create without key", "POST", "/boards", "", `{"id":"x","title":"X"}`, nil, 401},
		{"create with a board's key", "POST", "/boards", chessOnly, `{"id":"x","title":"X"}`, nil, 403},
		{"create existing", "POST", "/boards", all, `{"id":"chess","title":"Chess"}`, nil, 409},
		{"create too large", "POST", "/boards", all, `{"title":"` + strings.Repeat("x", 1_000_001) + `"}`, nil, 413},
		{"create invalid", "POST", "/boards", all, `{"id":"Bad Id","title":"","order":"up"}`, nil, 422},
		{"boards again", "GET", "/boards", "", "", nil, 200},

		{"board", "GET", "/boards/sprint", "", "", nil, 200},
		{"unknown board", "GET", "/boards/nope", "", "", nil, 404},

		{"update without id", "PUT", "/boards/sprint", all, `{"title":"100 m dash","format":{"type":"duration"},"periods":["week","all"],"rank_style":"dense"}`, nil, 200},
		{"update malformed", "PUT", "/boards/sprint", all, `[]`, nil, 400},
		{"update with a wrong key", "PUT", "/boards/sprint", "pdm_nope_nope", `{"title":"X"}`, nil, 401},
		{"update with a board's key", "PUT", "/boards/chess", chessOnly, `{"title":"X"}`, nil, 403},
		{"update unknown", "PUT", "/boards/nope", all, `{"title":"X"}`, nil, 404},
		{"update immutable", "PUT", "/boards/sprint", all, `{"title":"100 m","format":{"type":"duration"},"order":"higher"}`, nil, 409},
		{"update too large", "PUT", "/boards/sprint", all, `{"title":"` + strings.Repeat("x", 1_000_001) + `"}`, nil, 413},
		{"update another id", "PUT", "/boards/sprint", all, `{"id":"other","title":"X","format":{"type":"duration"}}`, nil, 422},

		{"submit one", "POST", "/boards/chess/scores", chessOnly, `{"member":"eve","score":8,"name":"Eve"}`, []string{"Idempotency-Key", "eve-1"}, 200},
		{"submit one again", "POST", "/boards/chess/scores", chessOnly, `{"member":"eve","score":8,"name":"Eve"}`, []string{"Idempotency-Key", "eve-1"}, 200},
		{"submit a batch", "POST", "/boards/chess/scores", all, `{"scores":[{"member":"ann","score":1},{"member":"fay","score":5,"op":"best","idempotency_key":"fay-1"}]}`, nil, 200},
		{"submit a batch without ranks", "POST", "/boards/chess/scores", all, `{"scores":[{"member":"gus","score":2,"op":"set"}],"ranks":false}`, nil, 200},
		{"submit with fields", "POST", "/boards/sprint/scores", all, `{"scores":[{"member":"usain","score":9580,"op":"best","fields":[2]},{"member":"yohan","score":9580,"fields":[1]},{"member":"tyson","score":9690,"fields":[0]}]}`, nil, 200},
		{"submit decimals", "POST", "/boards/cash/scores", all, `{"member":"ada","score":90071992547409.01,"op":"set"}`, nil, 200},
		{"submit below the cap", "POST", "/boards/cash/scores", all, `{"member":"bo","score":0.5}`, nil, 200},
		{"submit malformed", "POST", "/boards/chess/scores", all, `{"member":"ann","score":1,"scores":[]}`, nil, 400},
		{"submit invalid UTF-8", "POST", "/boards/chess/scores", all, "{\"member\":\"\xff\",\"score\":1}", nil, 400},
		{"submit without key", "POST", "/boards/chess/scores", "", `{"member":"ann","score":1}`, nil, 401},
		{"submit with a wrong key", "POST", "/boards/chess/scores", "pdm_nope_nope", `{"member":"ann","score":1}`, nil, 401},
		{"submit to another board", "POST", "/boards/sprint/scores", chessOnly, `{"member":"ann","score":1}`, nil, 403},
		{"submit to unknown board", "POST", "/boards/nope/scores", all, `{"member":"ann","score":1}`, nil, 404},
		{"submit to an archived period", "POST", "/boards/frozen/scores", all, `{"member":"ann","score":1}`, nil, 409},
		{"submit too large", "POST", "/boards/chess/scores", all, big, nil, 413},
		{"submit without score", "POST", "/boards/chess/scores", all, `{"member":"ann"}`, nil, 422},
		{"submit a batch item without score", "POST", "/boards/chess/scores", all, `{"scores":[{"member":"ann","score":1},{"member":"bob"}]}`, nil, 422},
		{"submit with a reused key", "POST", "/boards/chess/scores", chessOnly, `{"member":"eve","score":9}`, []string{"Idempotency-Key", "eve-1"}, 422},

		{"entries", "GET", "/boards/chess/entries?period=all&offset=0&limit=10", "", "", nil, 200},
		{"entries of the week", "GET", "/boards/chess/entries?period=week", "", "", nil, 200},
		{"entries with fields", "GET", "/boards/sprint/entries?period=week", "", "", nil, 200},
		{"entries of a decimal board", "GET", "/boards/cash/entries", "", "", nil, 200},
		{"entries of a past week", "GET", "/boards/chess/entries?period=week&at=2026-W49", "", "", nil, 200},
		{"entries bad limit", "GET", "/boards/chess/entries?limit=0", "", "", nil, 400},
		{"entries with a next", "GET", "/boards/chess/entries?period=all&limit=1", "", "", nil, 200},
		{"entries after a cursor", "GET", "/boards/chess/entries?period=all&limit=1&after=" + next, "", "", nil, 200},
		{"entries after a bad cursor", "GET", "/boards/chess/entries?period=all&after=nope", "", "", nil, 400},
		{"entries after a cursor of another period", "GET", "/boards/chess/entries?period=week&after=" + next, "", "", nil, 400},
		{"entries with offset and after", "GET", "/boards/chess/entries?period=all&offset=0&after=" + next, "", "", nil, 400},
		{"entries unknown board", "GET", "/boards/nope/entries", "", "", nil, 404},
		{"entries unknown period", "GET", "/boards/chess/entries?period=day", "", "", nil, 404},
		{"entries bad period key", "GET", "/boards/chess/entries?period=week&at=2026-W99", "", "", nil, 404},
		{"entries of a period gone", "GET", "/boards/chess/entries?period=week&at=2026-W50", "", "", nil, 410},

		{"around", "GET", "/boards/chess/members/bob/around?period=all&radius=1", "", "", nil, 200},
		{"around at the top", "GET", "/boards/sprint/members/usain/around?period=week", "", "", nil, 200},
		{"around bad radius", "GET", "/boards/chess/members/bob/around?radius=x", "", "", nil, 400},
		{"around unknown member", "GET", "/boards/chess/members/ghost/around", "", "", nil, 404},
		{"around unknown board", "GET", "/boards/nope/members/bob/around", "", "", nil, 404},
		{"around in a period gone", "GET", "/boards/chess/members/bob/around?period=week&at=2026-W50", "", "", nil, 410},
		{"around a bad member id", "GET", "/boards/chess/members/" + long + "/around", "", "", nil, 422},

		{"ranks", "GET", "/boards/chess/ranks?period=all&member=dan&member=bob&member=ghost&member=cat", "", "", nil, 200},
		{"ranks, no member", "GET", "/boards/chess/ranks", "", "", nil, 422},
		{"ranks unknown board", "GET", "/boards/nope/ranks?member=ann", "", "", nil, 404},
		{"ranks in a period gone", "GET", "/boards/chess/ranks?period=week&at=2026-W50&member=ann", "", "", nil, 410},
		{"ranks a bad member id", "GET", "/boards/chess/ranks?member=" + long, "", "", nil, 422},
		{"ranks posted", "POST", "/boards/chess/ranks", "", `{"members":["ann","bob"],"period":"all"}`, nil, 200},
		{"ranks posted, bad JSON", "POST", "/boards/chess/ranks", "", `{"members":`, nil, 400},
		{"ranks posted, unknown board", "POST", "/boards/nope/ranks", "", `{"members":["ann"]}`, nil, 404},
		{"ranks posted, period gone", "POST", "/boards/chess/ranks", "", `{"members":["ann"],"period":"week","at":"2026-W50"}`, nil, 410},
		{"ranks posted, too large", "POST", "/boards/chess/ranks", "", `{"members":["` + strings.Repeat("a", 1<<20) + `"]}`, nil, 413},
		{"ranks posted, a bad member id", "POST", "/boards/chess/ranks", "", `{"members":["` + long + `"]}`, nil, 422},
		{"friends set", "PUT", "/boards/chess/members/ann/friends", all, `{"friends":["bob","cat","zed"]}`, nil, 200},
		{"friends set, bad JSON", "PUT", "/boards/chess/members/ann/friends", all, `[`, nil, 400},
		{"friends set, no key", "PUT", "/boards/chess/members/ann/friends", "", `{"friends":[]}`, nil, 401},
		{"friends set, another board's key", "PUT", "/boards/cash/members/ann/friends", chessOnly, `{"friends":[]}`, nil, 403},
		{"friends set, unknown board", "PUT", "/boards/nope/members/ann/friends", all, `{"friends":[]}`, nil, 404},
		{"friends set, too large", "PUT", "/boards/chess/members/ann/friends", all, `{"friends":["` + strings.Repeat("a", 1<<20) + `"]}`, nil, 413},
		{"friends set, themself", "PUT", "/boards/chess/members/ann/friends", all, `{"friends":["ann"]}`, nil, 422},
		{"friends", "GET", "/boards/chess/members/ann/friends", "", "", nil, 200},
		{"friends unknown board", "GET", "/boards/nope/members/ann/friends", "", "", nil, 404},
		{"friends a bad member id", "GET", "/boards/chess/members/" + long + "/friends", "", "", nil, 422},
		{"friends ranks", "GET", "/boards/chess/members/ann/friends/ranks?period=all", "", "", nil, 200},
		{"friends ranks, unknown board", "GET", "/boards/nope/members/ann/friends/ranks", "", "", nil, 404},
		{"friends ranks, period gone", "GET", "/boards/chess/members/ann/friends/ranks?period=week&at=2026-W50", "", "", nil, 410},
		{"friends ranks, a bad member id", "GET", "/boards/chess/members/" + long + "/friends/ranks", "", "", nil, 422},

		{"export CSV", "GET", "/boards/sprint/export?period=week", "", "", nil, 200},
		{"export JSON", "GET", "/boards/sprint/export?period=week&format=json", "", "", nil, 200},
		{"export infinite scores", "GET", "/boards/raw/export?format=json", "", "", nil, 200},
		{"export bad format", "GET", "/boards/chess/export?format=xml", "", "", nil, 400},
		{"export unknown board", "GET", "/boards/nope/export", "", "", nil, 404},
		{"export a period gone", "GET", "/boards/chess/export?period=week&at=2026-W50", "", "", nil, 410},

		{"remove from a week", "DELETE", "/boards/chess/members/bob?period=week", chessOnly, "", nil, 200},
		{"remove without key", "DELETE", "/boards/chess/members/bob", "", "", nil, 401},
		{"remove with another board's key", "DELETE", "/boards/sprint/members/usain", chessOnly, "", nil, 403},
		{"remove unknown member", "DELETE", "/boards/chess/members/ghost", all, "", nil, 404},
		{"remove from unknown period", "DELETE", "/boards/chess/members/ann?period=day", all, "", nil, 404},
		{"remove from an archived period", "DELETE", "/boards/chess/members/ann?period=week&at=2026-W50", all, "", nil, 409},
		{"remove a bad member id", "DELETE", "/boards/chess/members/" + long, all, "", nil, 422},
		{"remove with at but no period", "DELETE", "/boards/chess/members/ann?at=2026-W50", all, "", nil, 422},

		{"teams", "GET", "/boards/league/teams?limit=1&offset=1", "", "", nil, 200},
		{"teams bad limit", "GET", "/boards/league/teams?limit=0", "", "", nil, 400},
		{"teams of a board without", "GET", "/boards/chess/teams", "", "", nil, 404},
		{"teams of a period gone", "GET", "/boards/cup/teams?period=week&at=2026-W50", "", "", nil, 410},
		{"team", "GET", "/boards/league/teams/red", "", "", nil, 200},
		{"team unknown", "GET", "/boards/league/teams/green", "", "", nil, 404},
		{"team bad id", "GET", "/boards/league/teams/" + long, "", "", nil, 422},
		{"team move", "PUT", "/boards/league/members/cat/team", all, `{"team":"blue","reason":"trade"}`, nil, 200},
		{"team leave", "PUT", "/boards/league/members/cat/team", all, `{"team":""}`, nil, 200},
		{"team malformed", "PUT", "/boards/league/members/cat/team", all, `{"team":`, nil, 400},
		{"team without key", "PUT", "/boards/league/members/cat/team", "", `{"team":"red"}`, nil, 401},
		{"team with another board's key", "PUT", "/boards/league/members/cat/team", chessOnly, `{"team":"red"}`, nil, 403},
		{"team on an unknown board", "PUT", "/boards/nope/members/cat/team", all, `{"team":"red"}`, nil, 404},
		{"team too big", "PUT", "/boards/league/members/cat/team", all, `{"team":"` + strings.Repeat("r", 1_100_000) + `"}`, nil, 413},
		{"team left out", "PUT", "/boards/league/members/cat/team", all, `{}`, nil, 422},
		{"team on a board without", "PUT", "/boards/chess/members/cat/team", all, `{"team":"red"}`, nil, 422},

		{"hooks", "GET", "/boards/chess/hooks", chessOnly, "", nil, 200},
		{"hooks without key", "GET", "/boards/chess/hooks", "", "", nil, 401},
		{"hooks with another board's key", "GET", "/boards/league/hooks", chessOnly, "", nil, 403},
		{"hooks of an unknown board", "GET", "/boards/nope/hooks", all, "", nil, 404},
		{"hook create", "POST", "/boards/chess/hooks", all, `{"url":"https://example.com/podium","events":["leader.changed","period.closed"],"periods":["week"],"top":5}`, nil, 201},
		{"hook create malformed", "POST", "/boards/chess/hooks", all, `{"url":`, nil, 400},
		{"hook create without key", "POST", "/boards/chess/hooks", "", `{}`, nil, 401},
		{"hook create with another board's key", "POST", "/boards/league/hooks", chessOnly, `{}`, nil, 403},
		{"hook create on an unknown board", "POST", "/boards/nope/hooks", all, `{}`, nil, 404},
		{"hook create over the limit", "POST", "/boards/raw/hooks", all, `{"url":"https://example.com/h","events":["leader.changed"]}`, nil, 409},
		{"hook create too big", "POST", "/boards/chess/hooks", all, `{"url":"` + strings.Repeat("h", 1_100_000) + `"}`, nil, 413},
		{"hook create over http", "POST", "/boards/chess/hooks", all, `{"url":"http://example.com/h","events":["leader.changed"]}`, nil, 422},
		{"hook test", "POST", "/boards/chess/hooks/" + ping.ID + "/test", chessOnly, "", nil, 202},
		{"hook test unknown", "POST", "/boards/chess/hooks/nope/test", all, "", nil, 404},
		{"hook test without key", "POST", "/boards/chess/hooks/" + ping.ID + "/test", "", "", nil, 401},
		{"hook test with another board's key", "POST", "/boards/league/hooks/x/test", chessOnly, "", nil, 403},
		{"hook", "GET", "/boards/chess/hooks/" + ping.ID, chessOnly, "", nil, 200},
		{"hook unknown", "GET", "/boards/chess/hooks/nope", all, "", nil, 404},
		{"hook without key", "GET", "/boards/chess/hooks/" + ping.ID, "", "", nil, 401},
		{"hook with another board's key", "GET", "/boards/league/hooks/x", chessOnly, "", nil, 403},
		{"hook off", "PATCH", "/boards/chess/hooks/" + ping.ID, chessOnly, `{"enabled":false}`, nil, 200},
		{"hook on", "PATCH", "/boards/chess/hooks/" + ping.ID, chessOnly, `{"enabled":true}`, nil, 200},
		{"hook patch malformed", "PATCH", "/boards/chess/hooks/" + ping.ID, all, `{"enabled":"yes"}`, nil, 400},
		{"hook patch of the url", "PATCH", "/boards/chess/hooks/" + ping.ID, all, `{"url":"https://example.com/x"}`, nil, 400},
		{"hook patch empty", "PATCH", "/boards/chess/hooks/" + ping.ID, all, `{}`, nil, 422},
		{"hook patch unknown", "PATCH", "/boards/chess/hooks/nope", all, `{"enabled":true}`, nil, 404},
		{"hook patch without key", "PATCH", "/boards/chess/hooks/" + ping.ID, "", `{"enabled":true}`, nil, 401},
		{"hook patch with another board's key", "PATCH", "/boards/league/hooks/x", chessOnly, `{"enabled":true}`, nil, 403},
		{"hook secret", "POST", "/boards/chess/hooks/" + ping.ID + "/secret", chessOnly, "", nil, 200},
		{"hook secret unknown", "POST", "/boards/chess/hooks/nope/secret", all, "", nil, 404},
		{"hook secret without key", "POST", "/boards/chess/hooks/" + ping.ID + "/secret", "", "", nil, 401},
		{"hook secret with another board's key", "POST", "/boards/league/hooks/x/secret", chessOnly, "", nil, 403},
		{"hook delete", "DELETE", "/boards/chess/hooks/" + gone.ID, all, "", nil, 204},
		{"hook delete again", "DELETE", "/boards/chess/hooks/" + gone.ID, all, "", nil, 404},
		{"hook delete without key", "DELETE", "/boards/chess/hooks/" + ping.ID, "", "", nil, 401},
		{"hook delete with another board's key", "DELETE", "/boards/league/hooks/x", chessOnly, "", nil, 403},

		{"member", "GET", "/boards/chess/members/eve", "", "", nil, 200},
		{"member missing from a period", "GET", "/boards/chess/members/bob", "", "", nil, 200},
		{"member unknown", "GET", "/boards/chess/members/ghost", "", "", nil, 404},
		{"member of unknown board", "GET", "/boards/nope/members/ann", "", "", nil, 404},
		{"member bad id", "GET", "/boards/chess/members/" + long, "", "", nil, 422},
		{"entries under a privacy mode", "GET", "/boards/class/entries", "", "", nil, 200},
		{"a member a privacy mode hides", "GET", "/boards/class/members/ann", "", "", nil, 404},
		{"a member by their personal link", "GET", "/boards/class/members/bob", "", "", bob, 200},
		{"around a member by their personal link", "GET", "/boards/class/members/bob/around", "", "", bob, 200},

		{"freeze later", "PUT", "/boards/chess/freeze", all, `{"at":"2099-01-01T12:00:00Z","reason":"finals"}`, nil, 200},
		{"freeze now", "PUT", "/boards/chess/freeze", chessOnly, "", nil, 200},
		{"freeze malformed", "PUT", "/boards/chess/freeze", all, `{"at":"soon"}`, nil, 400},
		{"freeze without key", "PUT", "/boards/chess/freeze", "", "", nil, 401},
		{"freeze another board", "PUT", "/boards/sprint/freeze", chessOnly, "", nil, 403},
		{"freeze unknown board", "PUT", "/boards/nope/freeze", all, "", nil, 404},
		{"freeze again", "PUT", "/boards/chess/freeze", all, "", nil, 409},
		{"schedule the reveal", "PUT", "/boards/chess/freeze", all, `{"reveal_at":"2099-06-01T12:00:00Z"}`, nil, 200},
		{"a reveal before the freeze", "PUT", "/boards/chess/freeze", all, `{"reveal_at":"2001-01-01T00:00:00Z"}`, nil, 422},
		{"freeze too large", "PUT", "/boards/chess/freeze", all, `{"reason":"` + strings.Repeat("x", 1_000_001) + `"}`, nil, 413},
		{"freeze in the past", "PUT", "/boards/sprint/freeze", all, `{"at":"2001-01-01T00:00:00Z"}`, nil, 422},
		{"frozen entries", "GET", "/boards/chess/entries?period=all", "", "", nil, 200},
		{"frozen member", "GET", "/boards/chess/members/ann", "", "", nil, 200},
		{"frozen around", "GET", "/boards/chess/members/ann/around?period=all&radius=1", "", "", nil, 200},
		{"frozen board", "GET", "/boards/chess", "", "", nil, 200},
		{"unfreeze without key", "DELETE", "/boards/chess/freeze", "", "", nil, 401},
		{"unfreeze another board", "DELETE", "/boards/sprint/freeze", chessOnly, "", nil, 403},
		{"unfreeze unknown board", "DELETE", "/boards/nope/freeze", all, "", nil, 404},
		{"unfreeze", "DELETE", "/boards/chess/freeze", chessOnly, "", nil, 200},
		{"unfreeze again", "DELETE", "/boards/chess/freeze", all, "", nil, 409},

		{"remove from every period", "DELETE", "/boards/chess/members/bob", all, "", nil, 200},

		{"member data", "GET", "/boards/chess/members/dan/data", chessOnly, "", nil, 200},
		{"member data without key", "GET", "/boards/chess/members/dan/data", "", "", nil, 401},
		{"member data with a read-only key", "GET", "/boards/chess/members/dan/data", reader, "", nil, 403},
		{"member data of an unknown member", "GET", "/boards/chess/members/ghost/data", all, "", nil, 404},
		{"member data of an unknown board", "GET", "/boards/nope/members/dan/data", all, "", nil, 404},
		{"member data of a bad member id", "GET", "/boards/chess/members/" + long + "/data", all, "", nil, 422},
		{"erase", "POST", "/boards/chess/members/dan/erase", chessOnly, `{"mode":"remove"}`, nil, 200},
		{"erase again", "POST", "/boards/chess/members/dan/erase", all, "", nil, 200},
		{"erase with no body", "POST", "/boards/chess/members/fay/erase", all, "", nil, 200},
		{"erase malformed", "POST", "/boards/chess/members/ann/erase", all, `{"mode":`, nil, 400},
		{"erase without key", "POST", "/boards/chess/members/ann/erase", "", "", nil, 401},
		{"erase with a read-only key", "POST", "/boards/chess/members/ann/erase", reader, "", nil, 403},
		{"erase with another board's key", "POST", "/boards/league/members/ann/erase", chessOnly, "", nil, 403},
		{"erase an unknown member", "POST", "/boards/chess/members/ghost/erase", all, "", nil, 404},
		{"erase too large", "POST", "/boards/chess/members/ann/erase", all, `{"mode":"` + strings.Repeat("x", 1_000_001) + `"}`, nil, 413},
		{"erase in a bad mode", "POST", "/boards/chess/members/ann/erase", all, `{"mode":"shred"}`, nil, 422},
		{"delete with a board's key", "DELETE", "/boards/sprint", chessOnly, "", nil, 403},
		{"delete without key", "DELETE", "/boards/sprint", "", "", nil, 401},
		{"delete", "DELETE", "/boards/sprint", all, "", nil, 204},
		{"delete again", "DELETE", "/boards/sprint", all, "", nil, 404},
	}
	tests = append(tests, raceCases(t, f)...)
	tests = append(tests, segmentCases(t, f, all, chessOnly)...)
	tests = append(tests, leagueCases(t, f)...)
	tests = append(tests, ruleCases(t, f, all, chessOnly)...)
	for _, tc := range tests {
		v.run(t, f.URL, tc)
	}

	// Every operation answers 429 over the limit per client address, and
	// 503 while Redis cannot be reached (the document itself needs no Redis).
	limited := newOpenAPIServer(t, rdb, 1)
	v.run(t, limited, apiCase{"document within the limit", "GET", "/openapi.json", "", "", nil, 200})
	down := newOpenAPIServer(t, deadRedis(t), 1000)
	for _, op := range v.operations() {
		tc := sampleRequest(t, op.id, all)
		tc.name, tc.status = op.id+" over the limit", 429
		v.run(t, limited, tc)
		if op.id != "getOpenAPI" {
			tc.name, tc.status = op.id+" without Redis", 503
			v.run(t, down, tc)
		}
	}

	// Every GET but the export and those that need a key answers HEAD as the
	// document says: the GET's
	// status and headers, no body.
	for _, op := range v.operations() {
		if tc := sampleRequest(t, op.id, all); tc.method == "GET" && op.id != "exportPeriod" && tc.key == "" {
			req, _ := http.NewRequest(http.MethodHead, f.URL+"/api/v1"+tc.path, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || len(raw) > 0 || res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("HEAD %s: %d %q, %d bytes", tc.path, res.StatusCode, res.Header.Get("Content-Type"), len(raw))
			}
		}
	}

	// Every operation and every status it documents was seen.
	for _, op := range v.operations() {
		for _, status := range op.statuses {
			if !v.seen[op.id+" "+status] {
				t.Errorf("%s: documented status %s was never answered by the tests", op.id, status)
			}
		}
	}
}

// TestOpenAPIValidatorCatches: the checks above fail on what the document
// does not describe: an extra field, a missing one, an undocumented status.
func TestOpenAPIValidatorCatches(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 10})
	v := newOpenAPIValidator(t, f.URL)
	req, _ := http.NewRequest("GET", f.URL+"/api/v1/boards/chess/entries", nil)
	_, body, _ := v.send(t, req, "")
	var page map[string]any
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	page["extra"] = 1
	withExtra, _ := json.Marshal(page)
	delete(page, "extra")
	entries := page["entries"].([]any)
	delete(entries[0].(map[string]any), "score_text")
	withoutField, _ := json.Marshal(page)
	for _, tc := range []struct {
		name   string
		status int
		body   []byte
	}{
		{"extra field", 200, withExtra},
		{"missing field", 200, withoutField},
		{"undocumented status", 418, []byte(`{"error":{"code":"teapot","message":"no"}}`)},
	} {
		h := http.Header{"Content-Type": {"application/json"}}
		if err := v.validate(req, tc.status, h, tc.body); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
