package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/demo"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/provider"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
	"github.com/agentscope-go/agentscope/tool/builtin"
)

func init() {
	register("run", command{
		Summary: "send one prompt to a model through the agent loop and print the reply as it streams",
		Usage:   "--model URI [--json] [--base-url URL] [--system PROMPT] [--name NAME] [--tools SET] [--timeout DURATION] [--mcp SPEC]... [--mcp-timeout DURATION] [--a2a NAME=URL]... [--permission-mode MODE] [--sandbox MODE [--sandbox-network]] [-v] PROMPT (or the prompt on stdin)",
		Run:     runRun,
	})
}

// runRun answers one prompt with one agent reply. The text streams to
// stdout as it arrives; with --json every event of the reply is printed
// instead, one JSON object per line (the wire format the `fold` command and
// the reference's front ends read).
//
// The model URI names the provider and model (openai:gpt-4.1,
// anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, ollama:qwen3,
// openai-compatible:qwen3@http://localhost:8000/v1, …); API keys come from
// the provider's environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY,
// …). $AGENTSCOPE_MODEL is the default URI. Flags may come before or after
// the prompt; "--" ends them, for a prompt with words that start with '-'.
//
// --timeout bounds how long the model may stay silent: before the response
// starts and between two chunks (default 2m, see model.Timeouts);
// connecting has 10s. A call that times out is a connection error.
//
// Exit status: 0 for a completed reply; 1 when the reply failed (the typed
// error is printed: "agentscope run: <type>: <message>"), was interrupted
// (Ctrl-C) or ran out of iterations; 2 for bad usage. With --json a failed
// reply still ends with a REPLY_END (finished_reason "error" and the typed
// error), as the reference's service closes it, so a consumer always sees
// the stream close.
func runRun(ctx context.Context, inv *invocation) int {
	fs := inv.Flags(commands[inv.Name])
	uri := fs.String("model", os.Getenv("AGENTSCOPE_MODEL"), "the model `URI`, e.g. openai:gpt-4.1 (default $AGENTSCOPE_MODEL)")
	jsonOut := fs.Bool("json", false, "print every event as a JSON line instead of the text")
	baseURL := fs.String("base-url", "", "override the provider's API `URL` (e.g. http://127.0.0.1:8000/v1)")
	system := fs.String("system", "", "the system `prompt`")
	name := fs.String("name", "assistant", "the agent's `name`")
	verbose := fs.Bool("v", false, "log the agent's and the model's warnings (retries, fallbacks) to stderr")
	tools := fs.String("tools", "", "tool `set` to offer the model: \"demo\" (calculate, get_time), \"builtin\" (Bash, Read, Write, Edit, Glob, Grep) or \"none\"; default demo for --model demo, else none")
	timeout := fs.Duration("timeout", 0, "how long the model may stay silent before its response starts and between chunks (`duration`, e.g. 30s; default 2m; connecting has 10s)")
	var mcpSpecs specList
	fs.Var(&mcpSpecs, "mcp", "add the tools of an MCP server (repeatable): a command line ('npx -y @scope/server arg') or a URL, optionally prefixed `NAME=`")
	a2aSpecs := a2aFlag(fs, "")
	mcpTimeout := mcpTimeoutFlag(fs)
	var mode modeFlag
	fs.Var(&mode, "permission-mode", "the permission `mode`: default, accept_edits, explore (read-only), bypass or dont_ask (never ask)")
	sandboxF := sandboxFlags(fs, "", "")
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	sandbox, err := sandboxF.sandbox()
	if err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	if *uri == "" {
		inv.Errorf("--model is required (or set AGENTSCOPE_MODEL), e.g. --model openai:gpt-4.1")
		return exitUsage
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "" || prompt == "-" {
		b, err := io.ReadAll(inv.Stdin)
		if err != nil {
			inv.Errorf("read prompt: %v", err)
			return exitFailure
		}
		prompt = strings.TrimRight(string(b), "\r\n")
	}
	if strings.TrimSpace(prompt) == "" {
		inv.Errorf("no prompt: give it as arguments or on stdin")
		return exitUsage
	}

	if *timeout < 0 {
		inv.Errorf("--timeout must not be negative, got %v", *timeout)
		return exitUsage
	}

	// The failure itself is printed below; the agent's and the model's
	// logs repeat it (and tell of retries), so they are shown only on
	// request.
	level := slog.LevelError + 1
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: level}))
	stopTracing, err := startTracing(ctx, logger)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	defer func() {
		if err := stopTracing(); err != nil {
			inv.Errorf("%v", err)
		}
	}()
	popts := []provider.Option{
		provider.WithLogger(logger),
		provider.WithTimeouts(model.Timeouts{FirstByte: *timeout, Idle: *timeout}),
	}
	if *baseURL != "" {
		popts = append(popts, provider.WithBaseURL(*baseURL))
	}
	m, err := provider.New(*uri, popts...)
	if err != nil {
		printError(inv, err)
		return exitFailure
	}
	tk, err := toolkitFor(*tools, m, builtin.Config{Sandbox: sandbox})
	if err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	if sandbox.On() {
		if err := builtin.CheckSandbox(); err != nil {
			inv.Errorf("--sandbox: %v", err)
			return exitFailure
		}
	}
	// The MCP clients' warnings (a lost connection, a failed refresh)
	// are not in the reply's output: they are shown.
	mcpLevel := slog.LevelWarn
	if *verbose {
		mcpLevel = slog.LevelDebug
	}
	mcpLogger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: mcpLevel}))
	mws, closeMCP, err := mountMCP(ctx, tk, mcpSetup{Specs: mcpSpecs, CallTimeout: *mcpTimeout, Logger: mcpLogger, Warnf: inv.Errorf})
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	defer closeMCP()
	remotes, err := connectA2A(ctx, *a2aSpecs, func(int) string { return "--a2a " })
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	remoteTools, err := a2aTools(remotes)
	if err == nil {
		err = tk.Add("", remoteTools...)
	}
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	events, err := reply(ctx, replySetup{name: *name, model: m, system: *system, logger: logger, tools: tk, mode: mode.mode, middleware: mws}, prompt)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}

	out := bufio.NewWriter(inv.Stdout)
	p := replyPrinter{w: out, json: *jsonOut}
	for ev, err := range events {
		if err != nil {
			// Close the reply the agent left open, for JSON readers.
			if werr := p.fail(err); werr != nil {
				inv.Errorf("write: %v", werr)
			}
			printError(inv, err)
			return exitFailure
		}
		if err := p.event(ev); err != nil {
			inv.Errorf("write: %v", err)
			return exitFailure
		}
	}
	if err := p.finish(); err != nil {
		inv.Errorf("write: %v", err)
		return exitFailure
	}
	switch {
	case p.end == nil && p.asked != nil:
		var names []string
		for _, c := range p.asked.ToolCalls {
			names = append(names, c.Name)
		}
		inv.Errorf("the reply waits for permission to run %s; run does not ask: use --permission-mode bypass (allow) or dont_ask (deny)", strings.Join(names, ", "))
		return exitFailure
	case p.end == nil:
		inv.Errorf("the reply ended without REPLY_END")
		return exitFailure
	case p.end.FinishedReason == event.ReplyError:
		info := p.end.Error
		if info == nil {
			info = &event.ErrorInfo{Type: event.ErrUnknown}
		}
		inv.Errorf("%s: %s", orUnknown(info.Type), info.Message)
		return exitFailure
	case p.end.FinishedReason == event.ReplyInterrupted:
		inv.Errorf("interrupted")
		return exitFailure
	case p.end.FinishedReason == event.ReplyExceedMaxIters:
		inv.Errorf("the reply exceeded the maximum number of iterations")
		return exitFailure
	}
	return exitOK
}

// replySetup is what the command configures its agent with.
type replySetup struct {
	name, system string
	model        model.ChatModel
	logger       *slog.Logger
	tools        *tool.Toolkit
	mode         permission.Mode // "": the default mode
	middleware   []agent.Middleware
}

// reply starts one agent reply to a user prompt. It is the command's only
// use of the agent API.
func reply(ctx context.Context, s replySetup, prompt string) (iter.Seq2[event.Event, error], error) {
	a, err := agent.New(agent.Config{Name: s.name, Model: s.model, SystemPrompt: s.system, Toolkit: s.tools, Middleware: s.middleware, Logger: s.logger})
	if err != nil {
		return nil, err
	}
	if s.mode != "" {
		if err := a.Permissions().SetMode(s.mode); err != nil {
			return nil, err
		}
	}
	return a.Stream(ctx, []*message.Msg{message.UserText("user", prompt)}), nil
}

// replyPrinter writes a reply's events: the text deltas as plain text, or
// every event as a JSON line. Output is flushed per event so it streams.
type replyPrinter struct {
	w       *bufio.Writer
	json    bool
	start   *event.ReplyStart // the open reply, if any
	end     *event.ReplyEnd
	asked   *event.RequireUserConfirm // the reply parked on a permission prompt
	texts   int                       // text blocks seen
	printed bool                      // some text was written
	lastNL  bool                      // the last text written ended a line
	buf     []byte
}

func (p *replyPrinter) event(ev event.Event) error {
	switch e := ev.(type) {
	case *event.ReplyStart:
		p.start, p.end = e, nil
	case *event.ReplyEnd:
		p.start, p.end = nil, e
	case *event.RequireUserConfirm:
		p.asked = e
	}
	if p.json {
		p.buf = append(ev.AppendJSON(p.buf[:0]), '\n')
		if _, err := p.w.Write(p.buf); err != nil {
			return err
		}
		return p.w.Flush()
	}
	switch e := ev.(type) {
	case *event.TextBlockStart:
		// Blocks of one reply (text before and after tool calls) are
		// separated by a blank line.
		if p.texts > 0 && p.printed {
			if err := p.write("\n"); err != nil {
				return err
			}
			if !p.lastNL {
				if err := p.write("\n"); err != nil {
					return err
				}
			}
		}
		p.texts++
	case *event.TextBlockDelta:
		if e.Delta == "" {
			return nil
		}
		if err := p.write(e.Delta); err != nil {
			return err
		}
		p.printed = true
		p.lastNL = strings.HasSuffix(e.Delta, "\n")
		return p.w.Flush()
	}
	return nil
}

func (p *replyPrinter) write(s string) error {
	_, err := p.w.WriteString(s)
	return err
}

// fail ends the output after the reply stream failed with err: a reply
// left open gets its REPLY_END(error), then the text is finished.
func (p *replyPrinter) fail(err error) error {
	if p.start != nil && p.json {
		end := event.NewReplyEndError(p.start.SessionID, p.start.ReplyID, model.Info(err))
		event.Stamp(end, nil)
		if werr := p.event(end); werr != nil {
			return werr
		}
	}
	return p.finish()
}

// finish ends the text with a newline and flushes.
func (p *replyPrinter) finish() error {
	if !p.json && p.printed && !p.lastNL {
		p.lastNL = true
		if err := p.write("\n"); err != nil {
			return err
		}
	}
	return p.w.Flush()
}

// printError prints an error with its type: the reference's ErrorType for
// model and setup failures, or the agent's own error text.
func printError(inv *invocation, err error) {
	var me *model.Error
	if errors.As(err, &me) {
		if me == err {
			inv.Errorf("%v", err) // its text starts with the type already
		} else {
			inv.Errorf("%s: %v", orUnknown(me.Type), err)
		}
		return
	}
	var ie *agent.InputError
	if errors.As(err, &ie) {
		inv.Errorf("invalid input: %v", err)
		return
	}
	inv.Errorf("%v", err)
}

func orUnknown(t event.ErrorType) string {
	if t == "" {
		return string(event.ErrUnknown)
	}
	return fmt.Sprint(t)
}

// toolkitFor builds the tools --tools names, the built-in ones with cfg.
// The demo model gets the demo tools unless told otherwise, so `run
// --model demo` shows a tool call.
func toolkitFor(set string, m model.ChatModel, cfg builtin.Config) (*tool.Toolkit, error) {
	if set == "" && m.Name() == demo.Name {
		set = "demo"
	}
	if cfg.Sandbox.On() && set != "builtin" {
		return nil, errors.New("--sandbox confines the built-in Bash tool: use it with --tools builtin")
	}
	switch set {
	case "", "none":
		return tool.NewToolkit(nil)
	case "demo":
		ts, err := demo.Tools(nil)
		if err != nil {
			return nil, err
		}
		return tool.NewToolkit(ts)
	case "builtin":
		return tool.NewToolkit(builtin.Tools(cfg))
	}
	return nil, fmt.Errorf("unknown tool set %q (want demo, builtin or none)", set)
}
