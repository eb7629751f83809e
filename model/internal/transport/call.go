package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
)

// Policy says how a call is made: its retries before the first byte, its
// timeouts and where its warnings go.
type Policy struct {
	MaxRetries int           // retries after the first attempt (default 0 = none)
	BaseDelay  time.Duration // first backoff (default 500ms)
	MaxDelay   time.Duration // cap on one backoff and on Retry-After (default 30s)
	// Timeouts bound each attempt's phases (zero fields = the defaults).
	// Connect is applied by Client, the others by Do.
	Timeouts model.Timeouts
	// Logger receives the retry warnings (nil = slog.Default()).
	Logger *slog.Logger
	// Sleep waits for d or until ctx is done; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p Policy) withDefaults() Policy {
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	if p.Logger == nil {
		p.Logger = slog.Default()
	}
	p.Timeouts = p.Timeouts.WithDefaults()
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Request describes one HTTP call.
type Request struct {
	Provider string // for errors and logs, e.g. "openai"
	Method   string // default POST
	URL      string
	Header   http.Header
	Body     []byte // sent anew on every attempt
}

// Do sends req, retrying 408, 409, 429, 5xx and connection errors per
// policy, and returns a 2xx response whose body the caller must close. Any
// other outcome is a *model.Error whose Attempts counts the requests made.
// A ctx cancellation is returned as ctx.Err() wrapped in a *model.Error of
// type connection, so callers can test errors.Is(err, context.Canceled).
//
// Each attempt waits at most p.Timeouts.FirstByte for the response
// headers, and the returned body fails a read that sees no data for
// p.Timeouts.Idle; both are connection errors (a *TimeoutError inside).
// A nil client is the shared one of Client.
func Do(ctx context.Context, client *http.Client, req Request, p Policy) (*http.Response, error) {
	client = keepCredentialsHome(Client(client, p.Timeouts)) // before the defaults: Client reads a negative Connect as none
	p = p.withDefaults()
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	for attempt := 0; ; attempt++ {
		resp, merr := try(ctx, client, method, req, p.Timeouts)
		if merr == nil {
			return resp, nil
		}
		merr.Attempts = attempt + 1
		if ctx.Err() != nil || !retryable(merr) || attempt >= p.MaxRetries {
			return nil, merr
		}
		d := Backoff(p, attempt, merr.RetryAfter)
		p.Logger.WarnContext(ctx, "model call failed; retrying", "provider", req.Provider,
			"attempt", attempt+1, "error", merr.Error(), "delay", d)
		if err := p.Sleep(ctx, d); err != nil {
			return nil, &model.Error{Type: event.ErrConnection, Provider: req.Provider, Message: "call cancelled", Attempts: attempt + 1, Err: err}
		}
	}
}

// try makes one attempt. Its context lives as long as the response body:
// a first-byte or idle timeout cancels it with a *TimeoutError as cause.
func try(ctx context.Context, client *http.Client, method string, req Request, t model.Timeouts) (*http.Response, *model.Error) {
	actx, cancel := context.WithCancelCause(ctx)
	hr, err := http.NewRequestWithContext(actx, method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		cancel(nil)
		return nil, &model.Error{Type: event.ErrSetup, Provider: req.Provider, Message: err.Error(), Err: err}
	}
	for k, vs := range req.Header {
		hr.Header[k] = vs
	}
	var firstByte *time.Timer
	if t.FirstByte > 0 {
		firstByte = time.AfterFunc(t.FirstByte, func() { cancel(&TimeoutError{Phase: PhaseFirstByte, After: t.FirstByte}) })
	}
	resp, err := client.Do(hr)
	if firstByte != nil && !firstByte.Stop() && err == nil {
		// The timer fired as the headers arrived: the body is already
		// cut off, so the attempt failed after all.
		resp.Body.Close()
		resp, err = nil, context.Cause(actx)
	}
	switch {
	case err != nil:
		defer cancel(nil)
		if ctx.Err() != nil {
			return nil, &model.Error{Type: event.ErrConnection, Provider: req.Provider, Message: "call cancelled", Err: ctx.Err()}
		}
		if te, ok := context.Cause(actx).(*TimeoutError); ok {
			return nil, &model.Error{Type: event.ErrConnection, Provider: req.Provider, Message: te.Error(), Err: te}
		}
		return nil, &model.Error{Type: clientErrorType(err), Provider: req.Provider, Message: err.Error(), Err: err}
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		resp.Body = newIdleBody(actx, cancel, resp.Body, t.Idle)
		return resp, nil
	}
	// An error body is read under the idle limit too; Classify closes it.
	resp.Body = newIdleBody(actx, cancel, resp.Body, t.Idle)
	return nil, Classify(req.Provider, resp)
}

// credentialHeaders carry provider keys. Go's client strips only
// Authorization on a redirect, and keeps it for the same host name on
// another port.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key"}

// keepCredentialsHome returns a copy of c whose redirects to another origin
// (scheme, host or port) drop the credential headers, so a key never
// reaches a server it was not given to.
func keepCredentialsHome(c *http.Client) *http.Client {
	cp := *c
	check := c.CheckRedirect
	cp.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if from := via[0].URL; r.URL.Scheme != from.Scheme || r.URL.Host != from.Host {
			for _, k := range credentialHeaders {
				r.Header.Del(k)
			}
		}
		if check != nil {
			return check(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

// retryable adds 409 Conflict (a lock or concurrent-request clash on the
// provider's side) to the retryable classes, as the OpenAI and Anthropic
// SDKs do: its type stays invalid_request, since retrying it again later
// (the agent's own loop) is not expected to help.
func retryable(e *model.Error) bool {
	return e.Retryable() || e.Status == http.StatusConflict
}

// Backoff returns the wait before retry number attempt+1: Retry-After when
// the server gave one, else full jitter over an exponential window.
func Backoff(p Policy, attempt int, retryAfter time.Duration) time.Duration {
	p = p.withDefaults()
	if retryAfter > 0 {
		return min(retryAfter, p.MaxDelay)
	}
	window := p.BaseDelay << min(attempt, 16)
	if window <= 0 || window > p.MaxDelay {
		window = p.MaxDelay
	}
	return time.Duration(rand.Int64N(int64(window)) + 1)
}

// Classify turns a non-2xx response into a *model.Error, keeping the
// provider's own message, and closes the body.
func Classify(provider string, resp *http.Response) *model.Error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &model.Error{
		Provider:   provider,
		Status:     resp.StatusCode,
		Message:    ErrorMessage(body),
		RetryAfter: RetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
	switch s := resp.StatusCode; {
	case s == 401:
		e.Type = event.ErrAuthentication
	case s == 403:
		e.Type = event.ErrPermission
	case s == 429:
		e.Type = event.ErrRateLimit
	case s == 408:
		// The server gave up waiting for the request: a timeout, retried
		// like one.
		e.Type = event.ErrConnection
	case s == 400 || s == 404 || s == 409 || s == 413 || s == 422:
		e.Type = event.ErrInvalidRequest
	case s >= 500:
		e.Type = event.ErrUpstream
	default:
		e.Type = event.ErrUnknown
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// ErrorMessage extracts a provider's error text from a JSON body
// ({"error":{"message":…}}, {"error":"…"}, {"message":…}), else the trimmed
// body itself.
func ErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		}
	}
	return strings.TrimSpace(string(body))
}

// RetryAfter parses a Retry-After header (seconds or an HTTP date).
func RetryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(strings.TrimSpace(h), 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// StreamError wraps an error that broke a stream after its first byte.
func StreamError(provider string, err error) error {
	if err == nil {
		return nil
	}
	var me *model.Error
	if errors.As(err, &me) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &model.Error{Type: event.ErrConnection, Provider: provider, Message: "stream cancelled", Err: err}
	}
	return &model.Error{Type: event.ErrConnection, Provider: provider, Message: fmt.Sprintf("stream broken: %v", err), Err: err}
}

// clientErrorType tells a misconfiguration, which no retry can fix (a base
// URL without http(s)://, a certificate the client rejects), from a
// connection failure, which a retry may.
func clientErrorType(err error) event.ErrorType {
	var (
		unknownCA x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		hostname  x509.HostnameError
		tlsVerify *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &unknownCA), errors.As(err, &invalid), errors.As(err, &hostname), errors.As(err, &tlsVerify):
		return event.ErrSetup
	case strings.Contains(err.Error(), "unsupported protocol scheme"):
		return event.ErrSetup
	}
	return event.ErrConnection
}
