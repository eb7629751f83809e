package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"log/slog"
	"os"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
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
	tools := fs.String("tools", "", toolsUsage+" to offer the model; default demo for --model demo, else none")
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
	// The agent is assembled as serve's, chat's and mcp's are (agentSpec):
	// the same tool sets, the same demo agent, the same sandbox rules.
	spec := agentSpec{Model: *uri, BaseURL: *baseURL, SystemPrompt: *system, Name: *name, PermissionMode: string(mode.mode),
		timeouts: model.Timeouts{FirstByte: *timeout, Idle: *timeout}}
	if *tools != "" {
		spec.Tools, _ = json.Marshal(*tools)
	}
	specs := []agentSpec{spec}
	if err := sandboxF.applyTo(specs); err != nil {
		inv.Errorf("%v", err)
		return exitUsage
	}
	spec = specs[0]
	if err := spec.check(); err != nil {
		inv.Errorf("--%v", err)
		return exitUsage
	}
	removeOffload, err := privateOffload(&spec)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	defer removeOffload()
	// The MCP clients' warnings (a lost connection, a failed refresh)
	// are not in the reply's output: they are shown.
	mcpLevel := slog.LevelWarn
	if *verbose {
		mcpLevel = slog.LevelDebug
	}
	mcpLogger := slog.New(slog.NewTextHandler(inv.Stderr, &slog.HandlerOptions{Level: mcpLevel}))
	clients, closeMCP, err := connectMCP(ctx, mcpSetup{Specs: mcpSpecs, CallTimeout: *mcpTimeout, Logger: mcpLogger, Warnf: inv.Errorf})
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	defer closeMCP()
	if spec.remotes, err = connectA2A(ctx, *a2aSpecs, func(int) string { return "--a2a " }); err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	built, err := spec.build(logger, clients...)
	if err != nil {
		// The flag names the model already: its typed error is enough.
		if me := (*model.Error)(nil); errors.As(err, &me) {
			err = me
		}
		printError(inv, err)
		return exitFailure
	}
	a, err := built.New(nil)
	if err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	events := a.Stream(ctx, []*message.Msg{message.UserText("user", prompt)})

	out := bufio.NewWriter(inv.Stdout)
	p := replyPrinter{w: out, json: *jsonOut}
	if !*jsonOut {
		// Each tool call and its outcome go to stderr, as the chat shows
		// them: what ran (a deletion included) is never invisible.
		p.tools = newRenderer(inv.Stderr, isTerminal(inv.Stderr) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb")
		p.tools.verbose = *verbose
		p.sameTerminal = isTerminal(inv.Stdout) && isTerminal(inv.Stderr)
	}
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
	// tools shows the tool calls and results (on stderr; nil: not
	// shown). sameTerminal: stdout and stderr are one terminal, where a
	// tool's line must not start in the middle of the text's.
	tools        *renderer
	sameTerminal bool
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
	switch ev.(type) {
	case *event.ToolCallStart, *event.ToolCallDelta, *event.ToolCallEnd,
		*event.ToolResultStart, *event.ToolResultTextDelta, *event.ToolResultDataDelta, *event.ToolResultEnd:
		if p.tools == nil {
			return nil
		}
		switch ev.(type) {
		case *event.ToolCallEnd, *event.ToolResultEnd:
			if p.sameTerminal && p.printed && !p.lastNL {
				p.lastNL = true
				if err := p.write("\n"); err != nil {
					return err
				}
				if err := p.w.Flush(); err != nil {
					return err
				}
			}
		}
		p.tools.event(ev)
		return nil
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
