package web

//go:generate bash ../scripts/webui.sh build

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed dist
var dist embed.FS

// CSP is the Content-Security-Policy of every answer of Handler.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// file is one embedded file, ready to serve.
type file struct {
	body, gz []byte
	ctype    string
	etag     string
}

// Files are the paths Handler serves: the page at / and its assets.
var Files = []string{"/", "/ui/app.js", "/ui/app.css"}

// files is built on the first request, not at start: compressing the
// bundle takes milliseconds and megabytes that a process which never
// serves the UI (run, chat, mcp) should not pay.
var files = sync.OnceValue(load)

func load() map[string]*file {
	out := map[string]*file{}
	for _, p := range Files {
		name := "dist/index.html"
		if p != "/" {
			name = "dist/" + path.Base(p)
		}
		body, err := fs.ReadFile(dist, name)
		if err != nil {
			panic("web: " + err.Error()) // the embed directive guarantees it
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		sum := sha256.Sum256(body)
		ctype := mime.TypeByExtension(path.Ext(name))
		if path.Ext(name) == ".js" {
			ctype = "text/javascript; charset=utf-8"
		}
		out[p] = &file{body: body, gz: gz.Bytes(), ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return out
}

// Handler serves the UI: GET or HEAD of one of Files, with the CSP, an
// ETag and gzip when the client takes it; anything else is 404. Mount it
// on those paths only ("GET /{$}" and "GET /ui/"), so that the API's
// routes, and its own 404s, keep every other path.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		f := files()[r.URL.Path]
		if f == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			http.NotFound(w, r)
			return
		}
		h.Set("Content-Type", f.ctype)
		// Revalidated each time: the ETag makes that a 304, and a new
		// binary's UI is never hidden behind a cached old one.
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		h.Add("Vary", "Accept-Encoding")
		if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, f.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		body := f.body
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			body = f.gz
		}
		w.Write(body)
	})
}

func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
