package api_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/redis/go-redis/v9"

	"podium/app"
	"podium/archive"
	"podium/internal/webtest"
	"podium/redisstore"
	"podium/web"
)

// apiCase is one request and the status it must get.
type apiCase struct {
	name, method, path, key, body string
	hdr                           []string
	status                        int
}

// openAPIValidator checks answers against the served document and records
// which operation answered which status.
type openAPIValidator struct {
	doc    *openapi3.T
	router routers.Router
	seen   map[string]bool // "operationId status"
}

func newOpenAPIValidator(t *testing.T, base string) *openAPIValidator {
	t.Helper()
	res, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("load the document: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &openAPIValidator{doc: doc, router: router, seen: map[string]bool{}}
}

type documentedOp struct {
	id       string
	statuses []string
}

// operations lists the document's operations and their statuses.
func (v *openAPIValidator) operations() []documentedOp {
	var ops []documentedOp
	for _, path := range v.doc.Paths.InMatchingOrder() {
		for _, op := range v.doc.Paths.Value(path).Operations() {
			var statuses []string
			for status := range op.Responses.Map() {
				statuses = append(statuses, status)
			}
			slices.Sort(statuses)
			ops = append(ops, documentedOp{op.OperationID, statuses})
		}
	}
	slices.SortFunc(ops, func(a, b documentedOp) int { return strings.Compare(a.id, b.id) })
	return ops
}

// run sends tc to the server at base and checks the answer.
func (v *openAPIValidator) run(t *testing.T, base string, tc apiCase) {
	t.Helper()
	var body io.Reader
	if tc.body != "" {
		body = strings.NewReader(tc.body)
	}
	req, err := http.NewRequest(tc.method, base+"/api/v1"+tc.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if tc.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if tc.key != "" {
		req.Header.Set("Authorization", "Bearer "+tc.key)
	}
	for i := 0; i+1 < len(tc.hdr); i += 2 {
		req.Header.Set(tc.hdr[i], tc.hdr[i+1])
	}
	status, raw, err := v.send(t, req, tc.body)
	if status != tc.status {
		t.Errorf("%s: %s %s answered %d, want %d: %.300s", tc.name, tc.method, tc.path, status, tc.status, raw)
	}
	if err != nil {
		t.Errorf("%s: %s %s (%d): %v", tc.name, tc.method, tc.path, status, err)
	}
}

// send makes the request and validates the answer; a request that
// succeeded is checked against the document too (what the server takes,
// the document must allow).
func (v *openAPIValidator) send(t *testing.T, req *http.Request, body string) (int, []byte, error) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.validate(req, res.StatusCode, res.Header, raw); err != nil {
		return res.StatusCode, raw, err
	}
	if res.StatusCode < 300 {
		return res.StatusCode, raw, v.validateRequest(req, body)
	}
	return res.StatusCode, raw, nil
}

// route finds the documented operation of a request. The document's server
// is relative (/api/v1), so the router sees the path and query alone.
func (v *openAPIValidator) route(req *http.Request) (*http.Request, *routers.Route, map[string]string, error) {
	r := req.Clone(context.Background())
	r.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	route, params, err := v.router.FindRoute(r)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("no operation in the document: %w", err)
	}
	return r, route, params, nil
}

// validate checks one answer against the document: the status must be
// documented, documented headers present and well formed, the body of the
// documented type and schema, and empty where the document has none.
func (v *openAPIValidator) validate(req *http.Request, status int, h http.Header, body []byte) error {
	r, route, params, err := v.route(req)
	if err != nil {
		return err
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 h,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	if resp := route.Operation.Responses.Status(status); resp != nil && len(resp.Value.Content) == 0 && len(body) > 0 {
		return fmt.Errorf("status %d has no body in the document, but the answer has %d bytes", status, len(body))
	}
	v.seen[fmt.Sprintf("%s %d", route.Operation.OperationID, status)] = true
	return nil
}

func (v *openAPIValidator) validateRequest(req *http.Request, body string) error {
	r, route, params, err := v.route(req)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(strings.NewReader(body))
	err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	})
	if err != nil {
		return fmt.Errorf("the server took a request the document refuses: %w", err)
	}
	return nil
}

// sampleRequest is a well-formed request for each operation, for the checks
// that every operation answers the same way (rate limits, Redis down).
func sampleRequest(t *testing.T, operationID, key string) apiCase {
	t.Helper()
	tc, ok := map[string]apiCase{
		"getOpenAPI":       {method: "GET", path: "/openapi.json"},
		"listBoards":       {method: "GET", path: "/boards"},
		"createBoard":      {method: "POST", path: "/boards", key: key, body: `{"id":"x","title":"X"}`},
		"getBoard":         {method: "GET", path: "/boards/chess"},
		"updateBoard":      {method: "PUT", path: "/boards/chess", key: key, body: `{"title":"Chess"}`},
		"deleteBoard":      {method: "DELETE", path: "/boards/chess", key: key},
		"listEntries":      {method: "GET", path: "/boards/chess/entries"},
		"getMember":        {method: "GET", path: "/boards/chess/members/ann"},
		"removeMember":     {method: "DELETE", path: "/boards/chess/members/ann", key: key},
		"getAround":        {method: "GET", path: "/boards/chess/members/ann/around"},
		"getRanks":         {method: "GET", path: "/boards/chess/ranks?member=ann&member=bob"},
		"postRanks":        {method: "POST", path: "/boards/chess/ranks", body: `{"members":["ann","bob"]}`},
		"getFriends":       {method: "GET", path: "/boards/chess/members/ann/friends"},
		"setFriends":       {method: "PUT", path: "/boards/chess/members/ann/friends", key: key, body: `{"friends":["bob"]}`},
		"getFriendsRanks":  {method: "GET", path: "/boards/chess/members/ann/friends/ranks"},
		"exportPeriod":     {method: "GET", path: "/boards/chess/export"},
		"submitScores":     {method: "POST", path: "/boards/chess/scores", key: key, body: `{"member":"ann","score":1}`},
		"startSession":     {method: "POST", path: "/boards/chess/sessions", key: key, body: `{"member":"ann"}`},
		"freezeBoard":      {method: "PUT", path: "/boards/chess/freeze", key: key},
		"unfreezeBoard":    {method: "DELETE", path: "/boards/chess/freeze", key: key},
		"getRace":          {method: "GET", path: "/boards/chess/race"},
		"getTeams":         {method: "GET", path: "/boards/league/teams"},
		"getTeam":          {method: "GET", path: "/boards/league/teams/red"},
		"setTeam":          {method: "PUT", path: "/boards/league/members/ann/team", key: key, body: `{"team":"red"}`},
		"setSegments":      {method: "PUT", path: "/boards/geo/members/ann/segments", key: key, body: `{"segments":{"country":"NO"}}`},
		"getLeagues":       {method: "GET", path: "/boards/lg/leagues"},
		"getCohort":        {method: "GET", path: "/boards/lg/leagues/0/1"},
		"getMemberLeague":  {method: "GET", path: "/boards/lg/members/ann/league"},
		"listHooks":        {method: "GET", path: "/boards/chess/hooks", key: key},
		"createHook":       {method: "POST", path: "/boards/chess/hooks", key: key, body: `{"url":"https://example.com/h","events":["leader.changed"]}`},
		"deleteHook":       {method: "DELETE", path: "/boards/chess/hooks/nope", key: key},
		"testHook":         {method: "POST", path: "/boards/chess/hooks/nope/test", key: key},
		"getHook":          {method: "GET", path: "/boards/chess/hooks/nope", key: key},
		"updateHook":       {method: "PATCH", path: "/boards/chess/hooks/nope", key: key, body: `{"enabled":false}`},
		"rotateHookSecret": {method: "POST", path: "/boards/chess/hooks/nope/secret", key: key},
		"getMemberData":    {method: "GET", path: "/boards/chess/members/ann/data", key: key},
		"eraseMember":      {method: "POST", path: "/boards/chess/members/ann/erase", key: key, body: `{"mode":"pseudonymise"}`},
	}[operationID]
	if !ok {
		t.Fatalf("operation %q has no sample request: add one (every operation needs an operationId)", operationID)
	}
	return tc
}

// newOpenAPIServer is the API over rdb with its own rate limiter, without
// the fixture's flush of the database. It is assembled here, with the
// console's parts as the app makes them, because app.New would not start
// on a Redis that is not there (deadRedis).
func newOpenAPIServer(t *testing.T, rdb redis.UniversalClient, addrLimit int) string {
	t.Helper()
	store := redisstore.NewStore(rdb, redisstore.WithClock(func() time.Time { return webtest.Now }))
	adm := app.NewAdmin(rdb, store, app.Config{KeyLimit: 1000, AddrLimit: addrLimit})
	h := httptest.NewServer(web.New(web.Options{Store: store, Admin: adm, Export: archive.NewReader(store, nil, 2), Logger: webtest.Quiet}))
	t.Cleanup(h.Close)
	return h.URL
}

// deadRedis is a client of a loopback port where nothing listens: every
// command fails at once with a refused connection.
func deadRedis(t *testing.T) *redis.Client {
	t.Helper()
	webtest.SilenceRedis()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: 10 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
