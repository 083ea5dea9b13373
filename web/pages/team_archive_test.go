package pages_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"podium/archive"
	"podium/board"
	"podium/internal/webtest"
	"podium/redisstore"
)

// TestTeamPagesOfAnArchivedPeriod: once a closed week has left Redis for
// the archive, its team page, team widget and the API's teams show the
// team standing it closed with, exactly as they did from Redis; a week
// archived while its board kept no teams says its team standing was not
// archived, rather than that no team scored.
func TestTeamPagesOfAnArchivedPeriod(t *testing.T) {
	ctx := context.Background()
	f := webtest.New(t, webtest.Archive(), webtest.Clock(func() time.Time { return webtest.Now }), webtest.StoreOptions(redisstore.WithDefinitionTTL(0)))
	rdb, store, db, quiet := f.Redis, f.Store, f.App.Archive, webtest.Quiet
	closed := webtest.Now.AddDate(0, 0, -14)
	past := redisstore.NewStore(rdb, redisstore.WithClock(func() time.Time { return closed }), redisstore.WithDefinitionTTL(0))
	by := board.Author{Actor: "test"}
	for _, def := range []board.Board{
		{ID: "cup", Title: "Cup", Periods: []board.Kind{board.Weekly, board.AllTime}, Teams: board.TeamsAverage},
		{ID: "quiz", Title: "Quiz", Periods: []board.Kind{board.Weekly, board.AllTime}}, // no teams yet
	} {
		b, err := past.CreateBoard(ctx, def)
		if err != nil {
			t.Fatal(err)
		}
		b.Retention = 0 // archived weeks leave Redis at once
		if _, err := past.UpdateBoard(ctx, b); err != nil {
			t.Fatal(err)
		}
		// red 7.5 (10, 5) ties blue 7.5 (8, 7); green 3.67 (4, 4, 3); hal in no team.
		for _, s := range []board.Submission{{Member: "ann", Score: 10, Team: "red"}, {Member: "bob", Score: 5, Team: "red"},
			{Member: "cat", Score: 8, Team: "blue"}, {Member: "dan", Score: 7, Team: "blue"}, {Member: "eve", Score: 4, Team: "green"},
			{Member: "fay", Score: 4, Team: "green"}, {Member: "gus", Score: 3, Team: "green"}, {Member: "hal", Score: 20}} {
			if def.Teams == board.TeamsOff {
				s.Team = ""
			}
			if _, err := past.Submit(ctx, def.ID, s, by); err != nil {
				t.Fatal(err)
			}
		}
	}
	cup, _ := store.Board(ctx, "cup")
	week := cup.Current(board.Weekly, closed)
	at := "period=week&at=" + url.QueryEscape(week.Key)
	read := func() (page, widget, api, team string) {
		t.Helper()
		var bodies [4]string
		for i, path := range []string{"/b/cup/teams?" + at, "/embed/cup?teams=1&" + at, "/api/v1/boards/cup/teams?" + at, "/b/cup/teams/green?" + at} {
			res, body := f.Get(path)
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d\n%s", path, res.StatusCode, webtest.Excerpt(body))
			}
			bodies[i] = body
		}
		return standings(t, bodies[0]), standings(t, bodies[1]), bodies[2], bodies[3]
	}
	page, widget, api, team := read()
	for _, want := range []string{">red<", ">blue<", ">green<", "7.5", "3.67"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the team page from Redis lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(team, `data-testid="archived-note"`) {
		t.Fatal("a week still in Redis is called archived")
	}

	a := &archive.Archiver{Store: store, DB: db, Linger: time.Millisecond, Log: quiet}
	if n, err := a.Due(ctx); err != nil || n != 2 {
		t.Fatalf("archived %d: %v", n, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if n, err := store.Count(ctx, &cup, week); err != nil || n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the week did not leave Redis")
		}
	}
	if past, err := store.FromPast(ctx, &cup, week); err != nil || !past {
		t.Fatalf("the week is not read from the archive: %v %v", past, err)
	}
	page2, widget2, api2, team2 := read()
	if page2 != page {
		t.Fatalf("the team page from the archive differs:\n%s\nRedis showed:\n%s", page2, page)
	}
	if widget2 != widget {
		t.Fatalf("the team widget from the archive differs:\n%s\nRedis showed:\n%s", widget2, widget)
	}
	if api2 != api {
		t.Fatalf("the API's teams from the archive differ:\n%s\nRedis showed:\n%s", api2, api)
	}
	// A team's page lists its members with their archived ranks, and says so.
	if standings(t, team2) != standings(t, team) || !strings.Contains(team2, `data-testid="archived-note"`) {
		t.Fatalf("green's page from the archive:\n%s", webtest.Excerpt(team2))
	}

	// The quiz kept no teams when its week was archived.
	quiz, _ := store.Board(ctx, "quiz")
	quiz.Teams = board.TeamsSum
	if _, err := store.UpdateBoard(ctx, quiz); err != nil {
		t.Fatal(err)
	}
	qat := "period=week&at=" + url.QueryEscape(week.Key)
	res, body := f.Get("/b/quiz/teams?" + qat)
	if res.StatusCode != 410 || !strings.Contains(body, "Team standings of this period were not archived") ||
		!strings.Contains(body, `href="/b/quiz?`) || strings.Contains(body, "No team has a score") {
		t.Fatalf("teams of a week archived without them: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	if res, body := f.Get("/embed/quiz?teams=1&" + qat); res.StatusCode != 410 || !strings.Contains(body, "Team standings of this period were not archived") {
		t.Fatalf("team widget of a week archived without them: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
	if res, body := f.Get("/api/v1/boards/quiz/teams?" + qat); res.StatusCode != 410 || !strings.Contains(body, `"teams_not_archived"`) {
		t.Fatalf("API teams of a week archived without them: %d\n%s", res.StatusCode, body)
	}
	if res, body := f.Get("/b/quiz?" + qat); res.StatusCode != 200 || !strings.Contains(body, ">hal<") {
		t.Fatalf("the members of that week: %d\n%s", res.StatusCode, webtest.Excerpt(body))
	}
}

// standings cuts a page's standings table out of it.
func standings(t *testing.T, page string) string {
	t.Helper()
	from, to := strings.Index(page, "<table"), strings.Index(page, "</table>")
	if from < 0 || to < from {
		t.Fatalf("no table in:\n%s", webtest.Excerpt(page))
	}
	return page[from : to+len("</table>")]
}
