package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/web"
)

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

// The page and its assets, each with the CSP that keeps every request on
// the page's origin, gzip when asked for, a 304 for a known ETag; any
// other path or method is 404.
func TestHandler(t *testing.T) {
	h := web.Handler()
	for _, c := range []struct{ path, ctype, has string }{
		{"/", "text/html; charset=utf-8", `<script type="module" src="/ui/app.js">`},
		{"/ui/app.js", "text/javascript; charset=utf-8", "X-User-ID"},
		{"/ui/app.css", "text/css; charset=utf-8", "prefers-color-scheme"},
	} {
		res := get(t, h, "GET", c.path)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != c.ctype || !bytes.Contains(body, []byte(c.has)) {
			t.Fatalf("GET %s: %d %q, body has %q: %v", c.path, res.StatusCode, res.Header.Get("Content-Type"), c.has, bytes.Contains(body, []byte(c.has)))
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, d := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, d) {
				t.Fatalf("GET %s: CSP %q lacks %q", c.path, csp, d)
			}
		}
		if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
			t.Fatalf("CSP %q allows more than the page's origin", csp)
		}
		gz := get(t, h, "GET", c.path, "Accept-Encoding", "gzip, deflate")
		zr, err := gzip.NewReader(gz.Body)
		if err != nil || gz.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET %s gzip: %v %q", c.path, err, gz.Header.Get("Content-Encoding"))
		}
		if unzipped, _ := io.ReadAll(zr); !bytes.Equal(unzipped, body) {
			t.Fatalf("GET %s: the gzip body differs", c.path)
		}
		etag := res.Header.Get("ETag")
		if again := get(t, h, "GET", c.path, "If-None-Match", etag); etag == "" || again.StatusCode != 304 {
			t.Fatalf("GET %s with its ETag %q: %d", c.path, etag, again.StatusCode)
		}
	}
	for _, c := range [][2]string{{"GET", "/ui/nope.js"}, {"GET", "/index.html"}, {"POST", "/"}, {"GET", "/sessions/"}} {
		if res := get(t, h, c[0], c[1]); res.StatusCode != 404 {
			t.Fatalf("%s %s: %d", c[0], c[1], res.StatusCode)
		}
	}
}

// ui returns web/ui with its npm tree installed (npm ci from the
// lockfile); the tests that need Node fail, never skip, without it.
func ui(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", "../scripts/webui.sh", "install").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("scripts/webui.sh install (needs node and npm): %v\n%s", err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestBundleIsFresh: the committed dist/ is what ui/src builds (run `go
// generate ./web` after editing the sources).
func TestBundleIsFresh(t *testing.T) {
	dir := ui(t)
	out := t.TempDir()
	run(t, dir, nil, "node", "build.mjs", "--out", out)
	built, _ := filepath.Glob(filepath.Join(out, "*"))
	committed, _ := filepath.Glob("dist/*")
	if len(built) != len(committed) || len(built) != len(web.Files) {
		t.Fatalf("built %v, committed %v", built, committed)
	}
	for _, f := range built {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join("dist", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("web/dist/%s is stale: run `go generate ./web` (%v)", filepath.Base(f), err)
		}
	}
}

// The sources type-check (esbuild only strips the types).
func TestTypeScriptChecks(t *testing.T) {
	dir := ui(t)
	run(t, dir, nil, "node", "node_modules/typescript/bin/tsc", "-p", ".")
}

// The TypeScript fold passes the fixtures the Go fold passes: node --test
// over ui/test, compiled, with the spec data the Go tests read.
func TestTypeScriptFold(t *testing.T) {
	dir := ui(t)
	out := t.TempDir()
	run(t, dir, nil, "node", "build.mjs", "--tests", out)
	files, _ := filepath.Glob(filepath.Join(out, "*.test.mjs"))
	if len(files) == 0 {
		t.Fatal("no compiled tests")
	}
	report := run(t, dir, []string{"AGENTSCOPE_TESTDATA=" + fixture.Dir(t)}, "node", append([]string{"--test"}, files...)...)
	if !strings.Contains(report, "# fail 0") || strings.Contains(report, "# pass 0\n") {
		t.Fatalf("node --test:\n%s", report)
	}
	t.Logf("node --test:\n%s", report[max(0, strings.LastIndex(report, "# tests")):])
}
