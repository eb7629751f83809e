package openai

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentscope-go/agentscope/block"
)

// maxFetch bounds one media download (URL or file:// source) inlined into a
// request.
const maxFetch = 64 << 20

// accepts reports whether the model takes mediaType (a glob match against
// the configured input types).
func (c *config) accepts(mediaType string) bool {
	for _, g := range c.inputTypes {
		if ok, _ := path.Match(g, mediaType); ok {
			return true
		}
	}
	return false
}

// mainType is "image" for "image/png".
func mainType(mediaType string) string {
	t, _, _ := strings.Cut(mediaType, "/")
	if t == "" {
		return "data"
	}
	return t
}

// mediaURL is the data block as a URL the wire accepts: the source URL for
// URL sources, a data: URL for inline bytes.
func mediaURL(d *block.Data) string {
	switch s := d.Source.(type) {
	case *block.URL:
		return s.URL
	case *block.Base64:
		return "data:" + s.MediaType + ";base64," + s.Data()
	}
	return ""
}

// inlineBytes returns the block's bytes base64-encoded, downloading URL and
// file:// sources with fetch.
func (c *config) inlineBase64(ctx context.Context, d *block.Data) (data, mediaType string, err error) {
	switch s := d.Source.(type) {
	case *block.Base64:
		return s.Data(), s.MediaType, nil
	case *block.URL:
		raw, mt, err := c.fetch(ctx, s.URL)
		if err != nil {
			return "", "", err
		}
		if s.MediaType != "" {
			mt = s.MediaType
		}
		return base64.StdEncoding.EncodeToString(raw), mt, nil
	}
	return "", "", fmt.Errorf("data block %q has no source", d.ID)
}

// fetchURL downloads http(s) and reads file:// sources, bounded by maxFetch.
func fetchURL(ctx context.Context, client *http.Client, raw string) ([]byte, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("media url: %w", err)
	}
	switch u.Scheme {
	case "file":
		p := u.Path
		f, err := os.Open(p)
		if err != nil {
			return nil, "", fmt.Errorf("media file: %w", err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxFetch+1))
		if err != nil {
			return nil, "", fmt.Errorf("media file: %w", err)
		}
		if len(data) > maxFetch {
			return nil, "", fmt.Errorf("media file %s is larger than %d bytes", p, maxFetch)
		}
		return data, mime.TypeByExtension(filepath.Ext(p)), nil
	case "http", "https":
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
		if err != nil {
			return nil, "", fmt.Errorf("media url: %w", err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, "", fmt.Errorf("media download: %w", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return nil, "", fmt.Errorf("media download %s: HTTP %d", raw, resp.StatusCode)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxFetch+1))
		if err != nil {
			return nil, "", fmt.Errorf("media download: %w", err)
		}
		if len(data) > maxFetch {
			return nil, "", fmt.Errorf("media at %s is larger than %d bytes", raw, maxFetch)
		}
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		return data, mt, nil
	}
	return nil, "", fmt.Errorf("media url %q: unsupported scheme %q", raw, u.Scheme)
}
