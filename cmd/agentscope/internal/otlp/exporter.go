package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Config is the exporter's settings; New fills the zero fields from the
// environment.
type Config struct {
	// URL is where requests are posted (zero: from the environment).
	URL string
	// Headers are sent with every request, beside Content-Type.
	Headers map[string]string
	// Timeout bounds one export, its retries included (zero: 10 s).
	Timeout time.Duration
	// Gzip compresses the request bodies.
	Gzip bool
	// Client sends the requests (nil: a client of its own).
	Client *http.Client
}

// Exporter is an sdktrace.SpanExporter posting OTLP/HTTP protobuf
// requests.
type Exporter struct {
	cfg Config

	mu     sync.Mutex
	closed bool
	buf    []byte
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// ErrNoEndpoint: neither URL nor the endpoint variables give a URL.
var ErrNoEndpoint = errors.New("otlp: no endpoint: set OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")

// New is an exporter of cfg, its zero fields from the environment's
// OTEL_EXPORTER_OTLP_* variables (the traces-specific one winning).
func New(cfg Config) (*Exporter, error) {
	if cfg.URL == "" {
		switch u, base := env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), env("OTEL_EXPORTER_OTLP_ENDPOINT"); {
		case u != "":
			cfg.URL = u
		case base != "":
			cfg.URL = strings.TrimRight(base, "/") + "/v1/traces"
		default:
			return nil, ErrNoEndpoint
		}
	}
	if u, err := url.Parse(cfg.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp: endpoint %q: want an http:// or https:// URL", cfg.URL)
	}
	if cfg.Headers == nil {
		h, err := parseHeaders(firstEnv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"))
		if err != nil {
			return nil, err
		}
		cfg.Headers = h
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
		if v := firstEnv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"); v != "" {
			ms, err := strconv.Atoi(v)
			if err != nil || ms <= 0 {
				return nil, fmt.Errorf("otlp: timeout %q: want a positive number of milliseconds", v)
			}
			cfg.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if !cfg.Gzip {
		switch v := strings.ToLower(firstEnv("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION")); v {
		case "gzip":
			cfg.Gzip = true
		case "", "none":
		default:
			return nil, fmt.Errorf("otlp: compression %q: want gzip or none", v)
		}
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	return &Exporter{cfg: cfg}, nil
}

func env(k string) string { return strings.TrimSpace(os.Getenv(k)) }

func firstEnv(keys ...string) string {
	for _, k := range keys {
		if v := env(k); v != "" {
			return v
		}
	}
	return ""
}

// parseHeaders reads the W3C baggage-like list the OTLP exporters take:
// key=value pairs, comma separated, values URL-encoded.
func parseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("otlp: headers: %q is not key=value", pair)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("otlp: headers: the value of %q: %w", k, err)
		}
		h[k] = dv
	}
	return h, nil
}

// ExportSpans posts one request holding spans.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errors.New("otlp: exporter shut down")
	}
	body := appendRequest(e.buf[:0], spans)
	e.buf = body
	if e.cfg.Gzip {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(body)
		zw.Close()
		body = zb.Bytes()
	} else {
		body = bytes.Clone(body)
	}
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	return e.post(ctx, body)
}

// retryable are the answers the OTLP specification says to retry.
func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

func (e *Exporter) post(ctx context.Context, body []byte) error {
	wait := 100 * time.Millisecond
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.URL, bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("otlp: %w", err)
		}
		for k, v := range e.cfg.Headers {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/x-protobuf")
		if e.cfg.Gzip {
			req.Header.Set("Content-Encoding", "gzip")
		}
		res, err := e.cfg.Client.Do(req)
		if err != nil {
			return fmt.Errorf("otlp: export: %w", err)
		}
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
		res.Body.Close()
		if res.StatusCode/100 == 2 {
			return nil
		}
		if !retryable(res.StatusCode) {
			return fmt.Errorf("otlp: export: %s: %s", res.Status, bytes.TrimSpace(msg))
		}
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("otlp: export: %s, and no time left to retry: %w", res.Status, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// Shutdown refuses later exports; the batcher flushes before it calls it.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return ctx.Err()
}
