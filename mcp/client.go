package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/internal/childenv"
	"github.com/agentscope-go/agentscope/tool"
)

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("mcp: client closed")

// StartError is Connect's error for a server that could not be started,
// did not complete the handshake or could not list its tools.
type StartError struct {
	// Target is the server's command line or URL.
	Target string
	// Stderr is the tail of a stdio server's standard error.
	Stderr string
	Err    error
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("mcp: starting server %q: %v", e.Target, e.Err)
	if e.Stderr != "" {
		msg += "; its stderr ends with: " + e.Stderr
	}
	return msg
}

func (e *StartError) Unwrap() error { return e.Err }

// Client is one connected MCP server. Its methods are safe for concurrent
// use. Close it to stop the server (a stdio child is killed with its
// process group) and its goroutines.
type Client struct {
	cfg  Config
	sdk  *sdk.Client
	name string
	log  *slog.Logger

	// dialSem serializes reconnections and listSem listings (each
	// listing with the update of the toolkits it leads to, so a later
	// listing always wins); both are channels so a waiter can give up
	// with its context: sessions of a server share one client.
	dialSem chan struct{}
	listSem chan struct{}
	// changes counts the events after which the tools may differ from
	// the last listing (a list_changed notification, a call answered by
	// a server that announces list changes, a reconnection); listed is
	// the count the last listing started at. Equal: nothing to do.
	changes atomic.Uint64
	listed  atomic.Uint64

	mu       sync.Mutex
	conn     *conn // nil while disconnected
	lastErr  error
	backoff  time.Duration
	nextTry  time.Time
	tools    []*remoteTool
	rejected []error
	mounts   []mount
	closed   bool

	tokens   atomic.Int64
	progress sync.Map // progress token -> chan *sdk.ProgressNotificationParams

	refresh chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup
}

// conn is one session with the server and, for stdio, its child.
type conn struct {
	sess   *sdk.ClientSession
	cmd    *exec.Cmd
	stderr *tail
	// cancel ends the context the transport was connected with, which
	// the legacy SSE transport keeps its event stream on.
	cancel context.CancelFunc
	// listChanged: the server announced (capabilities.tools.listChanged)
	// that it notifies changes of its tool list.
	listChanged bool
}

type mount struct {
	// tk is held weakly: a toolkit its agent dropped (a server builds one
	// per run) is forgotten without an unmount.
	tk    weak.Pointer[tool.Toolkit]
	group string
}

// Connect starts (or reaches) the server, performs the handshake and lists
// its tools, all within cfg.StartTimeout. A failure is a *StartError naming
// the command or URL; a Config error wraps ErrConfig. Tools whose input
// schema is unusable are left out and reported by [Client.Rejected].
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{
		cfg:     cfg,
		log:     cfg.Logger,
		refresh: make(chan struct{}, 1),
		done:    make(chan struct{}),
		dialSem: make(chan struct{}, 1),
		listSem: make(chan struct{}, 1),
	}
	c.sdk = sdk.NewClient(&sdk.Implementation{Name: "agentscope-go", Version: "dev"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.changes.Add(1)
			c.signalRefresh()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if ch, ok := c.progress.Load(req.Params.ProgressToken); ok {
				select {
				case ch.(chan *sdk.ProgressNotificationParams) <- req.Params:
				default: // a consumer that is behind loses progress, never the result
				}
			}
		},
	})
	sctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	cn, err := c.dial(sctx)
	if err != nil {
		return nil, err
	}
	c.name = cfg.Name
	if c.name == "" {
		if ir := cn.sess.InitializeResult(); ir != nil && ir.ServerInfo != nil {
			c.name = ir.ServerInfo.Name
		}
	}
	c.name = Sanitize(c.name)
	gen := c.changes.Load()
	tools, rejected, err := c.list(sctx, cn.sess)
	if err != nil {
		c.closeConn(cn)
		return nil, c.startError(cn, fmt.Errorf("listing tools: %w", err))
	}
	c.conn, c.tools, c.rejected = cn, tools, rejected
	c.listed.Store(gen)
	c.wg.Add(1)
	go c.refresher()
	return c, nil
}

// Name is the server's (sanitized) name, the middle part of its tools'
// names.
func (c *Client) Name() string { return c.name }

// Tools returns the server's current tools.
func (c *Client) Tools() []tool.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]tool.Tool, len(c.tools))
	for i, t := range c.tools {
		out[i] = t
	}
	return out
}

// Rejected returns the errors (*tool.SchemaError) of the server's tools
// that were left out because their input schema is unusable.
func (c *Client) Rejected() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.rejected)
}

// Mount adds the server's tools to tk, in group ("" or "basic": the
// always-active basic group; a group that does not exist is created with
// a description naming the server), and keeps them current: when the
// tools are listed again, they are replaced in tk. An agent on tk that has
// [Client.Middleware] re-lists them before each model call that may see
// a change, so that call sees the list as the server has it — including
// tools a call of the same reply made the server add. Without the
// middleware, tk is updated in the background once the server's
// notifications/tools/list_changed arrives, which may be after the next
// model call.
//
// c holds tk weakly, so an agent built per run (as a server builds them)
// may mount its own toolkit each time: a toolkit no longer used is
// dropped from c with it.
func (c *Client) Mount(tk *tool.Toolkit, group string) error {
	if group == "" {
		group = tool.BasicGroup
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	tools := make([]tool.Tool, len(c.tools))
	for i, t := range c.tools {
		tools[i] = t
	}
	var err error
	if group == tool.BasicGroup || slices.Contains(tk.GroupNames(), group) {
		err = tk.Add(group, tools...)
	} else {
		err = tk.AddGroup(tool.Group{
			Name:        group,
			Description: "Tools of the MCP server " + c.name + ".",
			Tools:       tools,
		})
	}
	if err != nil {
		return err
	}
	c.mounts = append(c.liveMounts(), mount{tk: weak.Make(tk), group: group})
	return nil
}

// Close stops the client: the session is closed and a stdio child is
// killed with its process group. Calls in flight end with an error
// result; later calls fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cn := c.conn
	c.conn = nil
	close(c.done)
	c.mu.Unlock()
	c.wg.Wait()
	if cn != nil {
		c.closeConn(cn)
	}
	return nil
}

func (c *Client) signalRefresh() {
	select {
	case c.refresh <- struct{}{}:
	default:
	}
}

// refresher re-lists the tools after notifications/tools/list_changed and
// after a reconnection, for toolkits that no agent's [Client.Middleware]
// keeps current; it exits when the client closes.
func (c *Client) refresher() {
	defer c.wg.Done()
	for {
		select {
		case <-c.done:
			return
		case <-c.refresh:
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.StartTimeout)
		go func() { // the listing stops with the client
			select {
			case <-c.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := c.sync(ctx)
		cancel()
		if err != nil && !errors.Is(err, errNotConnected) && !errors.Is(err, ErrClosed) {
			select {
			case <-c.done: // closing cut the listing short
			default:
				c.log.Warn("mcp: refreshing the tool list failed", "server", c.name, "error", err)
			}
		}
	}
}

var errNotConnected = errors.New("not connected")

// Refresh lists the server's tools now and updates Tools and the mounted
// toolkits (the client does it by itself, see [Client.Mount]). It fails
// while the server is disconnected.
func (c *Client) Refresh(ctx context.Context) error {
	if err := acquire(ctx, c.listSem); err != nil {
		return err
	}
	defer func() { <-c.listSem }()
	return c.relist(ctx, c.changes.Load())
}

// sync re-lists the tools if they may have changed since the last
// listing, or waits for a listing under way: after it returns, the tools
// reflect every change counted before it was called. When nothing
// changed it is one atomic load.
func (c *Client) sync(ctx context.Context) error {
	if c.listed.Load() == c.changes.Load() {
		return nil
	}
	if err := acquire(ctx, c.listSem); err != nil {
		return err
	}
	defer func() { <-c.listSem }()
	gen := c.changes.Load()
	if c.listed.Load() == gen { // a listing that started after the change finished
		return nil
	}
	return c.relist(ctx, gen)
}

// relist lists the tools and, on success, records that the tools reflect
// the changes counted up to gen. The caller holds listSem.
func (c *Client) relist(ctx context.Context, gen uint64) error {
	c.mu.Lock()
	cn, closed := c.conn, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case cn == nil:
		return fmt.Errorf("mcp: the server %q is %w", c.name, errNotConnected)
	}
	tools, rejected, err := c.list(ctx, cn.sess)
	if err != nil {
		return fmt.Errorf("mcp: listing the tools of %q: %w", c.name, err)
	}
	c.setTools(tools, rejected)
	c.listed.Store(gen)
	return nil
}

// acquire takes the one-slot semaphore sem, or gives up with ctx.
func acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Middleware returns the agent middleware that makes each model call see
// the server's tools as they are: before a reasoning step it re-lists
// them when they may have changed since the last listing (the server
// announced notifications/tools/list_changed, or the agent called one of
// its tools and the server announces list changes, since its notification
// may come after the call's result) and updates the toolkits the client
// is mounted in. When nothing happened it asks nothing of the server. A
// listing that fails (the server is down, say) is logged and the step
// goes on with the tools as they were. Add it to agent.Config.Middleware
// of every agent whose toolkit the client is mounted in.
func (c *Client) Middleware() agent.Middleware {
	return agent.Middleware{
		Name: "mcp:" + c.name,
		Reasoning: func(ctx context.Context, _ *agent.Agent, in agent.ReasoningInput, next agent.ReasoningHandler) iter.Seq2[agent.Item, error] {
			return func(yield func(agent.Item, error) bool) {
				lctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
				err := c.sync(lctx)
				cancel()
				if err != nil && ctx.Err() == nil && !errors.Is(err, errNotConnected) && !errors.Is(err, ErrClosed) {
					c.log.Warn("mcp: refreshing the tool list before a model call failed", "server", c.name, "error", err)
				}
				for it, err := range next(ctx, in) {
					if !yield(it, err) {
						return
					}
				}
			}
		},
	}
}

func (c *Client) setTools(tools []*remoteTool, rejected []error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	for _, err := range rejected {
		if !slices.ContainsFunc(c.rejected, func(old error) bool { return old.Error() == err.Error() }) {
			c.log.Warn("mcp: leaving out a tool with an unusable schema", "server", c.name, "error", err)
		}
	}
	var gone []string
	for _, old := range c.tools {
		if !slices.ContainsFunc(tools, func(t *remoteTool) bool { return t.name == old.name }) {
			gone = append(gone, old.name)
		}
	}
	var add []tool.Tool
	for _, t := range tools {
		if !slices.Contains(c.tools, t) { // new or changed
			add = append(add, t)
		}
	}
	c.tools, c.rejected = tools, rejected
	if len(gone) == 0 && len(add) == 0 {
		return
	}
	c.mounts = c.liveMounts()
	for _, m := range c.mounts {
		tk := m.tk.Value()
		if tk == nil {
			continue
		}
		tk.Remove(gone...)
		if err := tk.Add(m.group, add...); err != nil {
			c.log.Warn("mcp: updating the toolkit failed", "server", c.name, "error", err)
		}
	}
}

// liveMounts drops the mounts whose toolkit is gone (c.mu held).
func (c *Client) liveMounts() []mount {
	return slices.DeleteFunc(c.mounts, func(m mount) bool { return m.tk.Value() == nil })
}

// dial starts a new session.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	cn := &conn{}
	var t sdk.Transport
	if c.cfg.Command != "" {
		env, err := childenv.Environ(c.cfg.Env)
		if err != nil {
			return nil, c.startError(cn, err)
		}
		cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
		cmd.Env = env
		cmd.Dir = c.cfg.Dir
		cn.stderr = &tail{}
		cmd.Stderr = cn.stderr
		// A grandchild holding the pipes open must not keep Wait blocked.
		cmd.WaitDelay = time.Second
		ownGroup(cmd)
		cn.cmd = cmd
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	} else {
		hc := &http.Client{Transport: &headerTransport{
			base:    &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: c.cfg.Timeout},
			headers: c.cfg.Headers,
		}}
		if legacySSE(c.cfg.URL) {
			t = &sdk.SSEClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc}
		} else {
			t = &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc}
		}
	}
	// The transport may keep using the context it connects with (the SSE
	// event stream does): it lives with the session; ctx bounds only the
	// handshake.
	live, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	sess, err := c.sdk.Connect(live, t, nil)
	if !stop() && err == nil { // ctx ended as the handshake completed
		_ = sess.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		if cn.cmd != nil {
			killGroup(cn.cmd)
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("no complete handshake in time (%w): %v", ctx.Err(), err)
		}
		return nil, c.startError(cn, err)
	}
	cn.sess, cn.cancel = sess, cancel
	if ir := sess.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Tools != nil {
		cn.listChanged = ir.Capabilities.Tools.ListChanged
	}
	return cn, nil
}

func (c *Client) startError(cn *conn, err error) error {
	se := &StartError{Target: c.cfg.target(), Err: err}
	if cn.stderr != nil {
		se.Stderr = strings.TrimSpace(cn.stderr.String())
	}
	return se
}

// closeGrace is how long a stdio server may take to exit once its stdin
// is closed before its process group is killed.
const closeGrace = 500 * time.Millisecond

func (c *Client) closeConn(cn *conn) {
	defer cn.cancel()
	done := make(chan struct{})
	go func() { // Close waits for the child; killing the group ends that wait
		defer close(done)
		_ = cn.sess.Close()
	}()
	if cn.cmd == nil {
		<-done
		return
	}
	// The server had its stdin closed: a moment to exit by itself, then
	// the group goes, whatever it spawned.
	select {
	case <-done:
	case <-time.After(closeGrace):
	}
	killGroup(cn.cmd)
	<-done
}

// session returns the live session, reconnecting if the last one was lost
// (at once after a drop, then no sooner than the backoff after each failed
// attempt).
func (c *Client) session(ctx context.Context) (*conn, error) {
	// Waiting for another caller's reconnection (up to StartTimeout)
	// ends with ctx: an interrupt is answered at once.
	if err := acquire(ctx, c.dialSem); err != nil {
		return nil, err
	}
	defer func() { <-c.dialSem }()
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return nil, ErrClosed
	case c.conn != nil:
		cn := c.conn
		c.mu.Unlock()
		return cn, nil
	case time.Now().Before(c.nextTry):
		err := fmt.Errorf("the MCP server %q is not connected (%v); the next reconnection attempt is in %s",
			c.name, c.lastErr, time.Until(c.nextTry).Round(time.Millisecond))
		c.mu.Unlock()
		return nil, err
	}
	c.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	cn, err := c.dial(sctx)
	c.mu.Lock()
	if err != nil {
		defer c.mu.Unlock()
		if ctx.Err() != nil { // the caller gave up: not the server's failure
			return nil, err
		}
		c.backoff = min(max(2*c.backoff, c.cfg.ReconnectBackoff), maxBackoff)
		c.nextTry = time.Now().Add(c.backoff)
		c.lastErr = err
		return nil, fmt.Errorf("reconnecting to the MCP server %q: %w", c.name, err)
	}
	if c.closed { // Close ran while we dialed
		c.mu.Unlock()
		c.closeConn(cn)
		return nil, ErrClosed
	}
	c.conn, c.backoff, c.lastErr = cn, 0, nil
	c.mu.Unlock()
	c.changes.Add(1) // the server may have changed its tools meanwhile
	c.signalRefresh()
	c.log.Info("mcp: reconnected", "server", c.name)
	return cn, nil
}

// drop forgets a session found broken, so the next call reconnects.
func (c *Client) drop(cn *conn, cause error) {
	c.mu.Lock()
	if c.conn != cn {
		c.mu.Unlock()
		return
	}
	c.conn = nil
	c.lastErr = cause
	// Under mu: Close, which waits for wg, sets closed and clears conn
	// under mu first, so no Add can race its Wait.
	c.wg.Add(1)
	c.mu.Unlock()
	c.log.Warn("mcp: lost the connection to the server", "server", c.name, "error", cause)
	go func() {
		defer c.wg.Done()
		c.closeConn(cn)
	}()
}

// list fetches every page of the server's tools and builds them. A tool
// whose definition did not change is kept as it was, so its schema is
// not compiled again, here or by the toolkits it is mounted in.
func (c *Client) list(ctx context.Context, sess *sdk.ClientSession) ([]*remoteTool, []error, error) {
	c.mu.Lock()
	prev := make(map[string]*remoteTool, len(c.tools))
	for _, t := range c.tools {
		prev[t.remote] = t
	}
	c.mu.Unlock()
	var tools []*remoteTool
	var rejected []error
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, err
		}
		rt, err := c.newTool(t, prev[t.Name])
		if err != nil {
			rejected = append(rejected, err)
			continue
		}
		tools = append(tools, rt)
	}
	return tools, rejected, nil
}

func (c *Client) newTool(t *sdk.Tool, prev *remoteTool) (*remoteTool, error) {
	name := ToolName(c.name, t.Name)
	schema, err := inputSchema(t.InputSchema)
	readOnly := t.Annotations != nil && t.Annotations.ReadOnlyHint
	if err == nil && prev != nil && prev.description == t.Description && prev.readOnly == readOnly && bytes.Equal(prev.schema, schema) {
		return prev, nil
	}
	if err == nil {
		_, err = tool.NewValidator(name, schema)
	} else {
		err = &tool.SchemaError{Tool: name, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return &remoteTool{
		c:           c,
		name:        name,
		remote:      t.Name,
		description: t.Description,
		schema:      schema,
		readOnly:    readOnly,
	}, nil
}

// inputSchema is the server's schema with the reference's defaults for a
// missing type, properties and required.
func inputSchema(v any) (json.RawMessage, error) {
	var m map[string]any
	switch s := v.(type) {
	case nil:
		m = map[string]any{}
	case map[string]any:
		m = s
	default:
		raw, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("the input schema is not a JSON object: %w", err)
		}
	}
	out := make(map[string]any, len(m)+3)
	for k, x := range m {
		out[k] = x
	}
	if _, ok := out["type"]; !ok {
		out["type"] = "object"
	}
	if _, ok := out["properties"]; !ok {
		out["properties"] = map[string]any{}
	}
	if _, ok := out["required"]; !ok {
		out["required"] = []any{}
	}
	return json.Marshal(out)
}

func (c *Client) newToken() string {
	return "agentscope-" + strconv.FormatInt(c.tokens.Add(1), 10)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// tail keeps the last bytes written to it (a child's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = slices.Clone(t.buf[len(t.buf)-tailSize:])
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
