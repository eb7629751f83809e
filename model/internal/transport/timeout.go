package transport

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/model"
)

// Phases a TimeoutError names.
const (
	PhaseFirstByte = "first byte"
	PhaseIdle      = "idle"
)

// TimeoutError is the cause of a call cut off by a FirstByte or Idle
// timeout. It reports Timeout() true, as net.Error does.
type TimeoutError struct {
	Phase string
	After time.Duration
}

func (e *TimeoutError) Error() string {
	if e.Phase == PhaseIdle {
		return fmt.Sprintf("no data from the server for %v (idle timeout)", e.After)
	}
	return fmt.Sprintf("no response from the server within %v (first-byte timeout)", e.After)
}

// Timeout reports true.
func (e *TimeoutError) Timeout() bool { return true }

// clients holds one client per connect timeout, so that every model with
// the same setting shares one connection pool.
var clients sync.Map // time.Duration → *http.Client

// Client returns c, or when c is nil the shared client whose dialer and
// TLS handshake are bounded by t.Connect (after WithDefaults: 0 = none).
// The adapters call it once, at construction, so a caller's client is
// always used as given.
func Client(c *http.Client, t model.Timeouts) *http.Client {
	if c != nil {
		return c
	}
	connect := t.WithDefaults().Connect
	if hc, ok := clients.Load(connect); ok {
		return hc.(*http.Client)
	}
	var tr *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		tr = dt.Clone() // proxies from the environment, HTTP/2, idle pool
	} else {
		tr = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second}
	}
	tr.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = connect
	hc, _ := clients.LoadOrStore(connect, &http.Client{Transport: tr})
	return hc.(*http.Client)
}

// idleBody is a response body whose reads fail with a TimeoutError when
// the server stays silent for longer than d. The clock runs only inside
// Read, so a slow consumer never trips it. Closing it releases the
// attempt's context.
type idleBody struct {
	rc     io.ReadCloser
	ctx    context.Context // the attempt's; cancelled by the timer
	cancel context.CancelCauseFunc
	timer  *time.Timer // nil: no idle limit
	d      time.Duration
}

func newIdleBody(ctx context.Context, cancel context.CancelCauseFunc, rc io.ReadCloser, d time.Duration) *idleBody {
	b := &idleBody{rc: rc, ctx: ctx, cancel: cancel, d: d}
	if d > 0 {
		b.timer = time.AfterFunc(d, func() { cancel(&TimeoutError{Phase: PhaseIdle, After: d}) })
		b.timer.Stop()
	}
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.timer != nil {
		b.timer.Reset(b.d)
	}
	n, err := b.rc.Read(p)
	if b.timer != nil {
		b.timer.Stop()
	}
	if err != nil && err != io.EOF {
		// The transport reports a cancelled request as its own error;
		// the cause says whether the timer did it.
		if te, ok := context.Cause(b.ctx).(*TimeoutError); ok {
			err = te
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.rc.Close()
	b.cancel(context.Canceled)
	return err
}
