package webtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"

	"podium/audit"
)

// Key makes an API key that may write, for every board when boardID is "",
// and returns its secret.
func (f *Server) Key(name, boardID string) string {
	f.T.Helper()
	_, secret, err := f.Admin.Keys.Create(context.Background(), name, boardID, false)
	if err != nil {
		f.T.Fatal(err)
	}
	return secret
}

// Call sends a request with an optional API key, body and header name,
// value pairs, and decodes the JSON answer.
func (f *Server) Call(method, path, key, body string, hdr ...string) (int, map[string]any, http.Header) {
	f.T.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	status, raw, h := f.Send(method, path, key, r, hdr...)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			f.T.Fatalf("%s %s: not JSON (%d): %s", method, path, status, raw)
		}
	}
	return status, out, h
}

// RawCall sends a request and returns the status and the body as text.
func (f *Server) RawCall(method, path, key string, body io.Reader, hdr ...string) (int, string) {
	f.T.Helper()
	status, raw, _ := f.Send(method, path, key, body, hdr...)
	return status, raw
}

// Send sends a JSON request with an optional API key and headers.
func (f *Server) Send(method, path, key string, body io.Reader, hdr ...string) (int, string, http.Header) {
	f.T.Helper()
	req, _ := http.NewRequest(method, f.URL+path, body)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.T.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw), res.Header
}

// ErrCode is the code of an API error answer.
func ErrCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// ErrMessage is the message of an API error answer.
func ErrMessage(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["message"].(string)
	return c
}

// ErrField is the field an API error answer names.
func ErrField(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["field"].(string)
	return c
}

// HookSecret is a webhook's signing secret, as shown once.
var HookSecret = regexp.MustCompile(`whsec_[A-Za-z0-9_-]{43}`)

// HookAudit lists the board's webhook audit entries, newest first, and
// fails on one by another actor or that shows a secret or a URL's query.
func (f *Server) HookAudit(boardID, actor string) string {
	f.T.Helper()
	entries, _, err := f.Admin.Audit.List(context.Background(), audit.Filter{Board: boardID}, "", 20)
	if err != nil {
		f.T.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "hook.") {
			actions = append(actions, e.Action)
			if !strings.HasPrefix(e.Actor, actor) || strings.Contains(e.Before+e.After, "whsec_") || strings.Contains(e.Before+e.After, "token=") {
				f.T.Fatalf("audit entry %+v", e)
			}
		}
	}
	return strings.Join(actions, " ")
}
