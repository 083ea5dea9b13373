// Package static holds the CSS and JavaScript of the site, embedded in the
// binary and served under content-hash paths (/static/app.3f9a1c2b7d.css) so
// browsers may cache them forever: a changed file gets a new URL.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed *.css *.js *.svg
var files embed.FS

// Prefix is where static files are served.
const Prefix = "/static/"

type asset struct {
	name, hash, ctype string
	body              []byte
}

var (
	byName = map[string]*asset{} // "app.css" -> asset
	byPath = map[string]*asset{} // "app.3f9a1c2b7d.css" -> asset
)

func init() {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := files.ReadFile(e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		a := &asset{name: e.Name(), hash: hex.EncodeToString(sum[:])[:10], body: body}
		ext := path.Ext(e.Name())
		a.ctype = mime.TypeByExtension(ext)
		if a.ctype == "" {
			a.ctype = "application/octet-stream"
		}
		byName[e.Name()] = a
		byPath[strings.TrimSuffix(e.Name(), ext)+"."+a.hash+ext] = a
	}
}

// Path is the URL of a static file, with its content hash. It panics on an
// unknown name, which a template test catches at once.
func Path(name string) string {
	a, ok := byName[name]
	if !ok {
		panic("static: no file " + name)
	}
	ext := path.Ext(name)
	return Prefix + strings.TrimSuffix(name, ext) + "." + a.hash + ext
}

// Handler serves the hashed paths with long-lived immutable caching and an
// ETag; any other path under Prefix is a 404.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := byPath[strings.TrimPrefix(r.URL.Path, Prefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		etag := `"` + a.hash + `"`
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(a.body)
	})
}
