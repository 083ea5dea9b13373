package signin

import (
	"slices"
	"testing"
)

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "/",
		"/b/class-4b":           "/b/class-4b",
		"/admin?x=1":            "/admin?x=1",
		"//evil.example/":       "/",
		"/\\evil.example":       "/",
		"https://evil.example/": "/",
		"javascript:alert(1)":   "/",
		"/b/x\r\nSet-Cookie: a": "/",
		"evil.example":          "/",
	} {
		if got := LocalPath(in); got != want {
			t.Errorf("LocalPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// identity reads the address (lower-cased), insists on its verification
// unless told not to, and reads groups as a list or a single string.
func TestIdentityClaims(t *testing.T) {
	h := New(Options{Config: Config{GroupsClaim: "roles"}})
	id, err := h.identity(map[string]any{"email": " Ann@School.Example ", "email_verified": true, "roles": []any{"teachers", 7, "staff"}}, "/")
	if err != nil || id.Email != "ann@school.example" || !slices.Equal(id.Groups, []string{"teachers", "staff"}) {
		t.Fatalf("%+v %v", id, err)
	}
	if id, err := h.identity(map[string]any{"email": "a@b.example", "email_verified": "true", "roles": "teachers"}, "/"); err != nil || !slices.Equal(id.Groups, []string{"teachers"}) {
		t.Fatalf("%+v %v", id, err)
	}
	for _, claims := range []map[string]any{
		{"email": "a@b.example"},                          // not said to be verified
		{"email": "a@b.example", "email_verified": false}, // said not to be
		{"email_verified": true},                          // no address
		{"email": "not-an-address", "email_verified": true},
	} {
		if _, err := h.identity(claims, "/"); err == nil {
			t.Errorf("%v admitted", claims)
		}
	}
	lax := New(Options{Config: Config{GroupsClaim: "groups", AllowUnverified: true}})
	if _, err := lax.identity(map[string]any{"email": "a@b.example"}, "/"); err != nil {
		t.Errorf("OIDC_ALLOW_UNVERIFIED_EMAIL: %v", err)
	}
	if _, err := lax.identity(map[string]any{"email": "a@b.example", "email_verified": false}, "/"); err == nil {
		t.Error("OIDC_ALLOW_UNVERIFIED_EMAIL admitted an address the provider says is not verified")
	}
}

// An address is lower-cased as ASCII only: a provider's verified address
// with a character that Unicode folds into ASCII (the Kelvin sign K, the
// dotted İ) must not become another person's address, such as a console
// user's name.
func TestIdentityFoldsASCIIOnly(t *testing.T) {
	h := New(Options{Config: Config{GroupsClaim: "groups"}})
	for _, email := range []string{"\u212Aate@school.example", "\u0130an@school.example", "ann@\u212Aings.example"} {
		id, err := h.identity(map[string]any{"email": email, "email_verified": true}, "/")
		if err == nil && (id.Email == "kate@school.example" || id.Email == "ian@school.example" || id.Email == "ann@kings.example") {
			t.Errorf("%q became %q", email, id.Email)
		}
	}
	for _, email := range []string{"ann@school.example\n", "ann\x00@school.example", "ann @school.example"} {
		if id, err := h.identity(map[string]any{"email": email, "email_verified": true}, "/"); err == nil && id.Email != "ann@school.example" {
			t.Errorf("%q admitted as %q", email, id.Email)
		}
	}
}
