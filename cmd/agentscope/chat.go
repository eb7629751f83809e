package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/client"
	"golang.org/x/term"
)

func init() {
	register("chat", command{
		Summary: "chat in the terminal with an agent: of agentscope serve (its HTTP + SSE client), or in-process on the same store",
		Usage:   "[--server URL [--token TOKEN] | [--db PATH|postgres://…] [--config FILE | --model URI [--a2a NAME=URL]...] [--sandbox MODE [--sandbox-network]]] [--user ID] [--session ID] [--agent ID] [-v]",
		Run:     runChat,
	})
}

// quitWindow is how soon a second Ctrl+C must follow the first to quit.
const quitWindow = 2 * time.Second

// exitInterrupted is the status of a chat quit with Ctrl+C, as a shell
// reports a process killed by SIGINT.
const exitInterrupted = 130

// runChat is the terminal client of the server's HTTP API: one session,
// one prompt a line of stdin, the session's SSE stream rendered as it
// comes. With --server it talks to that server; without, it runs the
// server in this process on the store of --db (serve's default,
// ./agentscope.db, so a session started here continues under serve and
// back) with serve's agents (--config, or --model, or the demo agent),
// through an in-process transport: the same client, no socket.
//
// It handles SIGINT itself (main's context is cancelled by the first one,
// which here must only interrupt the reply), so it runs on a context
// without main's cancellation and quits on SIGTERM or a second Ctrl+C.
func runChat(ctx context.Context, inv *invocation) int {
	fs := inv.Flags(commands[inv.Name])
	var cfg chatConfig
	fs.StringVar(&cfg.Server, "server", os.Getenv("AGENTSCOPE_SERVER"), "the server's base `URL`, e.g. http://127.0.0.1:8080 (default $AGENTSCOPE_SERVER; none: chat in-process on --db)")
	fs.StringVar(&cfg.Token, "token", os.Getenv("AGENTSCOPE_TOKEN"), "the server's bearer `TOKEN` (default $AGENTSCOPE_TOKEN)")
	fs.StringVar(&cfg.User, "user", defaultUser(), "the user `ID` sent as X-User-ID (from $USER, else me)")
	fs.StringVar(&cfg.Session, "session", "", "continue the session with this `ID` instead of creating one")
	fs.StringVar(&cfg.Agent, "agent", "", "the agent `ID` of a new session (default: demo with --server, else the first agent)")
	fs.BoolVar(&cfg.Verbose, "v", false, "show the runtime's <system-reminder> hints (dimmed) and tool results whole")
	db := fs.String("db", "./agentscope.db", "in-process: the store, a SQLite file `path` or a postgres:// URL, as serve's")
	config := fs.String("config", "", "in-process: the agents of this JSON `file`, as serve's --config")
	uri := fs.String("model", os.Getenv("AGENTSCOPE_MODEL"), "in-process, without --config: the model `URI` (default $AGENTSCOPE_MODEL; none: the keyless demo agent)")
	sandbox := sandboxFlags(fs, "in-process: ", "; for every agent with Bash that names no sandbox")
	a2aSpecs := a2aFlag(fs, "in-process, without --config: ")
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	if fs.NArg() > 0 {
		inv.Errorf("unexpected arguments %q", fs.Args())
		return exitUsage
	}
	if cfg.User == "" {
		inv.Errorf("--user ID must not be empty")
		return exitUsage
	}
	var local []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "db", "config", "model", "sandbox", "sandbox-network", "a2a":
			local = append(local, "--"+f.Name)
		}
	})
	if cfg.Server != "" && len(local) > 0 {
		inv.Errorf("%s: only for a chat in-process, not with --server", strings.Join(local, ", "))
		return exitUsage
	}
	if cfg.Server == "" {
		if *config != "" && (slices.Contains(local, "--model") || slices.Contains(local, "--a2a")) {
			inv.Errorf("--config and --model or --a2a both set the agents: give one or the other")
			return exitUsage
		}
		stop, code := startInProcess(ctx, inv, &cfg, *db, *config, *uri, *a2aSpecs, sandbox)
		if stop == nil {
			return code
		}
		defer stop()
	}
	if cfg.Agent == "" {
		cfg.Agent = demoAgentID
	}
	cfg.Stdin, cfg.Stdout, cfg.Stderr = inv.Stdin, inv.Stdout, inv.Stderr
	cfg.TTY = isTerminal(inv.Stdout)
	cfg.Color = cfg.TTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"

	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	interrupts := make(chan struct{}, 4)
	cfg.Interrupts = interrupts
	done := make(chan struct{})
	defer close(done)
	go func() { // owned by runChat: ends when it returns
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				if s == syscall.SIGTERM {
					cancel()
					continue
				}
				select {
				case interrupts <- struct{}{}:
				default:
				}
			}
		}
	}()
	return chat(cctx, cfg, inv)
}

func defaultUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "me"
}

// isTerminal reports whether w is a character device (a terminal), the
// only place ANSI colours belong.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// chatConfig is what one chat runs with.
type chatConfig struct {
	Server, Token, User, Session, Agent string
	Stdin                               io.Reader
	Stdout, Stderr                      io.Writer
	// Color styles the output with ANSI escapes and renders Markdown;
	// false writes plain text.
	Color bool
	// TTY: Stdout is a terminal (a spinner, a status line rewritten in
	// place); with Stdin a terminal too, prompts are read with the line
	// editor.
	TTY bool
	// Verbose shows the runtime's hints and tool results whole.
	Verbose bool
	// Validate checks an edited tool call's input against the tool's
	// schema of agent (nil: against the schemas the server gives, GET
	// /agent/{id}/tools).
	Validate func(agent string, call *block.ToolCall) error
	// Interrupts delivers each Ctrl+C. nil: none ever comes.
	Interrupts <-chan struct{}
	// Transport carries the requests (nil: the network's).
	Transport http.RoundTripper
}

// follow keeps the session's stream open until ctx ends, reconnecting
// with Last-Event-ID when it drops, and sends each event on frames. ready
// is closed once the first connection is subscribed, so an input posted
// after it cannot be missed. It returns the error of a refusal no retry
// would change (a 4xx other than 429: unknown session, bad token).
//
// status hears of each outage once: its first error when the stream
// drops, nil when it is back.
func follow(ctx context.Context, c *client.Client, sid string, frames chan<- client.Frame, ready chan<- struct{}, status func(error)) error {
	var last int64 = -1 // no cursor: the run in progress, or from now
	backoff := 100 * time.Millisecond
	down := false
	opened := func() {
		if ready != nil {
			close(ready)
			ready = nil
		}
		if down {
			down = false
			status(nil)
		}
		backoff = 100 * time.Millisecond
	}
	for ctx.Err() == nil {
		var err error
		for f, ferr := range c.Stream(ctx, sid, last, opened) {
			if ferr != nil {
				err = ferr
				break
			}
			if f.Seq >= 0 {
				last = f.Seq
			}
			select {
			case frames <- f:
			case <-ctx.Done():
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		var ae *client.Error
		if errors.As(err, &ae) && ae.Status/100 == 4 && ae.Status != http.StatusTooManyRequests {
			return fmt.Errorf("stream: %w", err)
		}
		if err != nil && !down {
			down = true
			status(err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

// chatter is one chat: its client, renderer, input lines and stream.
type chatter struct {
	cfg    chatConfig
	inv    *invocation
	c      *client.Client
	sid    string
	agent  string
	r      *renderer
	in     chatInput
	frames <-chan client.Frame
	status chan error // the stream's outages (nil: back)
	lastC  time.Time  // the last Ctrl+C
	// parked is the confirmation a resumed session's reply waits for.
	parked *event.RequireUserConfirm
}

// errQuit ends the chat at the user's request (a second Ctrl+C).
var errQuit = errors.New("quit")

// errEOF ends the chat: stdin has no more lines.
var errEOF = errors.New("end of input")

// chat runs one chat session until EOF on stdin (exitOK), a second
// Ctrl+C (exitInterrupted) or a failure.
func chat(ctx context.Context, cfg chatConfig, inv *invocation) int {
	// The stream's goroutine warns on Stderr while the loop writes there.
	cfg.Stderr = &lockedWriter{w: cfg.Stderr}
	errInv := *inv
	errInv.Stderr = cfg.Stderr
	inv = &errInv
	c := &client.Client{BaseURL: cfg.Server, Token: cfg.Token, User: cfg.User, HTTP: &http.Client{Transport: cfg.Transport}}
	if cfg.Validate == nil {
		cfg.Validate = remoteValidator(ctx, c)
	}
	ch := &chatter{cfg: cfg, inv: inv, c: c, agent: cfg.Agent, status: make(chan error, 16)}
	var con *console
	out := cfg.Stdout
	stdin, inTTY := cfg.Stdin.(*os.File)
	inTTY = inTTY && cfg.TTY && term.IsTerminal(int(stdin.Fd()))
	if inTTY {
		con = &console{w: cfg.Stdout}
		out = con
	}
	ch.r = newRenderer(out, cfg.Color)
	ch.r.tty, ch.r.verbose = cfg.TTY, cfg.Verbose
	if f, ok := cfg.Stdout.(*os.File); ok && cfg.TTY {
		ch.r.width = func() (int, int) { return terminalSize(f) }
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if cfg.Session == "" {
		sid, err := c.CreateSession(ctx, cfg.Agent, "")
		if err != nil {
			inv.Errorf("create a session: %v", err)
			return exitFailure
		}
		ch.sid = sid
		fmt.Fprintf(cfg.Stderr, "session %s (agent %s); continue it with --session %s\n", ch.sid, cfg.Agent, ch.sid)
	} else {
		ch.sid = cfg.Session
		if err := ch.resume(ctx); err != nil {
			inv.Errorf("session %s: %v", ch.sid, err)
			return exitFailure
		}
	}

	frames := make(chan client.Frame, 256)
	ready := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	streamErr := make(chan error, 1)
	go func() { // owned by chat: ends with ctx, or at a refusal
		defer wg.Done()
		err := follow(ctx, c, ch.sid, frames, ready, func(err error) {
			select {
			case ch.status <- err:
			default:
			}
		})
		if err != nil {
			streamErr <- err
			cancel()
		}
	}()
	defer wg.Wait()
	defer cancel()
	select {
	case <-ready:
	case <-ctx.Done():
	case <-cfg.Interrupts:
		return exitInterrupted
	}
	select {
	case err := <-streamErr:
		inv.Errorf("%v", err)
		return exitFailure
	default:
	}
	if ctx.Err() != nil {
		return exitInterrupted
	}
	ch.frames = frames
	if inTTY {
		in := newTTYInput(stdin, cfg.Stdout, loadHistory(historyPath(cfg.User)), con)
		defer in.close()
		ch.in = in
	} else {
		ch.in = newPipeInput(ctx, cfg.Stdin, ch.r.showPrompt)
	}

	err := ch.loop(ctx)
	select {
	case err := <-streamErr:
		inv.Errorf("%v", err)
		return exitFailure
	default:
	}
	switch {
	case errors.Is(err, errEOF):
		ch.r.newline()
		return exitOK
	case errors.Is(err, errQuit):
		fmt.Fprintln(cfg.Stderr, "agentscope chat: quit")
		return exitInterrupted
	case ctx.Err() != nil:
		return exitInterrupted
	default:
		inv.Errorf("%v", err)
		return exitFailure
	}
}

// lockedWriter serializes writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// historyTail is how many messages a resumed session shows.
const historyTail = 10

// resume prints the tail of the session's transcript and learns its agent.
func (ch *chatter) resume(ctx context.Context) error {
	if list, err := ch.c.Sessions(ctx, ""); err == nil {
		for _, s := range list.Sessions {
			if s.Session.ID == ch.sid && s.Session.AgentID != "" {
				ch.agent = s.Session.AgentID
			}
		}
	}
	page, err := ch.c.Messages(ctx, ch.sid, "", historyTail)
	if err != nil {
		return err
	}
	w := ch.cfg.Stdout
	if page.HasMore {
		fmt.Fprintln(w, "…")
	}
	for _, raw := range page.Messages {
		ch.r.message(raw)
	}
	if st, err := ch.c.Status(ctx, ch.sid, ch.agent); err == nil && st != "" && st != "idle" {
		fmt.Fprintf(ch.cfg.Stderr, "(the session is %s)\n", strings.ReplaceAll(st, "_", " "))
		if st == "awaiting_permission" && len(page.Messages) > 0 {
			ch.parked = parkedConfirm(page.Messages[len(page.Messages)-1])
		}
	}
	return nil
}

// parkedConfirm rebuilds the confirmation a parked reply waits for from
// its stored message: the reply's id is the message's, and the calls are
// its tool calls still asking. The live stream cannot give it: its
// REQUIRE_USER_CONFIRM was sent before this client came. nil if the
// message asks nothing.
func parkedConfirm(raw json.RawMessage) *event.RequireUserConfirm {
	var m struct {
		ID      string            `json:"id"`
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Role != "assistant" {
		return nil
	}
	e := &event.RequireUserConfirm{ReplyID: m.ID}
	for _, b := range m.Content {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &head) != nil || head.Type != "tool_call" {
			continue
		}
		var call block.ToolCall
		if call.UnmarshalJSON(b) == nil && call.State == block.CallAsking {
			e.ToolCalls = append(e.ToolCalls, &call)
		}
	}
	if len(e.ToolCalls) == 0 {
		return nil
	}
	return e
}

// loop reads prompts and runs each reply to its end.
func (ch *chatter) loop(ctx context.Context) error {
	if e := ch.parked; e != nil {
		ch.parked = nil
		parked, err := ch.confirm(ctx, e)
		if err != nil {
			return err
		}
		if !parked {
			if err := ch.reply(ctx); err != nil {
				return err
			}
		}
	}
	for {
		line, err := ch.readLine(ctx, "> ", true)
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if ch.command(strings.TrimSpace(line)) {
			continue
		}
		msg := map[string]any{
			"role": "user", "name": ch.cfg.User,
			"content": []map[string]any{{"type": "text", "text": line}},
		}
		ch.r.quiet()
		if err := ch.post(ctx, msg); err != nil {
			ch.r.errorLine(fmt.Sprintf("agentscope chat: %v", err))
			continue
		}
		if err := ch.reply(ctx); err != nil {
			return err
		}
	}
}

// chatHelp is /help's answer.
const chatHelp = `/expand  the last reply's tool results whole
/help    this
Enter sends; a line ending in \ (or Alt+Enter) goes on on the next line.
Up and Down go through the prompts you sent, kept per user.
Ctrl+C interrupts a reply; twice quits. Ctrl+D on an empty line ends the chat.`

// command runs a chat command (/expand, /help); false: the line is a
// prompt.
func (ch *chatter) command(line string) bool {
	switch line {
	case "/expand":
		ch.r.expand()
	case "/help", "/?":
		for _, l := range strings.Split(chatHelp, "\n") {
			ch.r.notice(l)
		}
	default:
		return false
	}
	return true
}

// readLine waits for a line of input; Ctrl+C while waiting (a key on the
// editor, or a signal) asks for a second one to quit. main: the prompt of
// a message, with history and several lines.
func (ch *chatter) readLine(ctx context.Context, prompt string, main bool) (string, error) {
	answer := ch.in.read(prompt, main)
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case r := <-answer:
			if errors.Is(r.err, errInterruptKey) {
				if ch.secondCtrlC() {
					return "", errQuit
				}
				fmt.Fprintln(ch.cfg.Stderr, "(Ctrl+C again to quit)")
				answer = ch.in.read(prompt, main)
				continue
			}
			return r.line, r.err
		case <-ch.cfg.Interrupts:
			if ch.secondCtrlC() {
				return "", errQuit
			}
			fmt.Fprintln(ch.cfg.Stderr, "\n(Ctrl+C again to quit)")
			answer = ch.in.read(prompt, main)
		case f := <-ch.frames:
			// Another client's run on this session: show it (above the
			// line being edited, on a terminal).
			ch.r.noRewrite = true
			ch.r.event(f.Event)
			ch.r.noRewrite = false
		case err := <-ch.status:
			ch.showStatus(err)
		}
	}
}

// showStatus tells of the stream's outage (err) or its end (nil): one
// line each, the error in a few words.
func (ch *chatter) showStatus(err error) {
	if !ch.cfg.TTY {
		if err != nil {
			fmt.Fprintf(ch.cfg.Stderr, "agentscope chat: stream: %s; reconnecting\n", shortError(err))
		}
		return
	}
	if err != nil {
		ch.r.notice("⟳ connection to the server lost (" + shortError(err) + "); reconnecting…")
	} else {
		ch.r.notice("✓ reconnected")
	}
}

// shortError is err in a few words: the innermost error's text, the
// status of an HTTP answer.
func shortError(err error) string {
	var ae *client.Error
	switch {
	case errors.As(err, &ae):
		return fmt.Sprintf("HTTP %d", ae.Status)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the stream ended"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func (ch *chatter) secondCtrlC() bool {
	now := time.Now()
	second := !ch.lastC.IsZero() && now.Sub(ch.lastC) < quitWindow
	ch.lastC = now
	return second
}

func (ch *chatter) post(ctx context.Context, input any) error {
	raw, err := json.Marshal(input)
	if err != nil {
		return err
	}
	return ch.c.Chat(ctx, ch.agent, ch.sid, raw)
}

// spinnerTick is how often the spinner turns.
const spinnerTick = 100 * time.Millisecond

// reply renders the stream until the reply ends; it answers the
// confirmations it asks for and interrupts it on Ctrl+C.
func (ch *chatter) reply(ctx context.Context) error {
	var tick <-chan time.Time
	if ch.cfg.TTY {
		t := time.NewTicker(spinnerTick)
		defer t.Stop()
		tick = t.C
	}
	defer ch.r.unspin()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case now := <-tick:
			ch.r.tick(now)
		case err := <-ch.status:
			ch.showStatus(err)
		case <-ch.cfg.Interrupts:
			if ch.secondCtrlC() {
				return errQuit
			}
			ch.r.unspin()
			if err := ch.c.Interrupt(ctx, ch.sid); err != nil {
				fmt.Fprintf(ch.cfg.Stderr, "\nagentscope chat: interrupt: %v\n", err)
			} else {
				fmt.Fprintln(ch.cfg.Stderr, "\n(interrupting; Ctrl+C again to quit)")
			}
		case f := <-ch.frames:
			ch.r.event(f.Event)
			switch e := f.Event.(type) {
			case *event.ReplyEnd:
				return nil
			case *event.RequireUserConfirm:
				parked, err := ch.confirm(ctx, e)
				if err != nil || parked {
					return err
				}
				ch.r.quiet()
			case *event.RequireExternalExecution:
				fmt.Fprintln(ch.cfg.Stderr, "(the reply waits for an external execution result; chat cannot give one)")
				return nil
			}
		}
	}
}

// confirm asks y / n / a / e for each call and posts the answers. parked
// reports that the reply stays parked (stdin ended, or posting failed).
func (ch *chatter) confirm(ctx context.Context, e *event.RequireUserConfirm) (parked bool, err error) {
	ch.r.unspin()
	res := &event.UserConfirmResult{ReplyID: e.ReplyID}
	for _, call := range e.ToolCalls {
		cr, err := ch.ask(ctx, call)
		if errors.Is(err, errEOF) {
			fmt.Fprintf(ch.cfg.Stderr, "(the reply stays parked; continue it with --session %s)\n", ch.sid)
		}
		if err != nil {
			return true, err
		}
		res.ConfirmResults = append(res.ConfirmResults, cr)
	}
	event.Stamp(res, nil)
	if err := ch.post(ctx, json.RawMessage(event.Marshal(res))); err != nil {
		ch.r.errorLine(fmt.Sprintf("agentscope chat: confirm: %v", err))
		return true, nil
	}
	return false, nil
}

func (ch *chatter) ask(ctx context.Context, call *block.ToolCall) (event.ConfirmResult, error) {
	q := "allow? [y]es / [n]o / [a]lways / [e]dit: "
	if len(call.SuggestedRules) == 0 {
		q = "allow? [y]es / [n]o / [e]dit: "
	}
	for {
		ch.r.confirmHeader(call)
		line, err := ch.readLine(ctx, q, false)
		if err != nil {
			return event.ConfirmResult{}, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return event.ConfirmResult{Confirmed: true, ToolCall: call}, nil
		case "n", "no":
			return event.ConfirmResult{Confirmed: false, ToolCall: call}, nil
		case "a", "always":
			if len(call.SuggestedRules) > 0 {
				return event.ConfirmResult{Confirmed: true, ToolCall: call, Rules: call.SuggestedRules}, nil
			}
		case "e", "edit":
			ch.r.notice("the input now: " + call.Input)
			for {
				in, err := ch.readLine(ctx, "new input (JSON; empty: back): ", false)
				if err != nil {
					return event.ConfirmResult{}, err
				}
				if strings.TrimSpace(in) == "" {
					break
				}
				edited := call.CloneBlock().(*block.ToolCall)
				edited.Input = strings.TrimSpace(in)
				if err := ch.checkInput(edited); err != nil {
					ch.r.errorLine(err.Error() + "; try again")
					continue
				}
				return event.ConfirmResult{Confirmed: true, ToolCall: edited}, nil
			}
		}
	}
}

// checkInput refuses an edited call's input that the tool would refuse:
// not JSON, not an object, or (where the chat knows the tool's schema)
// not valid against it.
func (ch *chatter) checkInput(call *block.ToolCall) error {
	if !json.Valid([]byte(call.Input)) {
		return errors.New("not valid JSON")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(call.Input), &obj) != nil {
		return errors.New("not a JSON object: a tool's input is one, {\"name\": value, …}")
	}
	if ch.cfg.Validate != nil {
		if err := ch.cfg.Validate(ch.agent, call); err != nil {
			return fmt.Errorf("not accepted: %v", err)
		}
	}
	return nil
}

// terminalSize is f's columns and rows, or $COLUMNS and 0 when f reports
// none (0: unknown, no wrapping).
func terminalSize(f *os.File) (cols, rows int) {
	if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w, h
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c, 0
	}
	return 0, 0
}
