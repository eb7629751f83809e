package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/agui"
)

func init() {
	register("convert", command{
		Summary: "convert one reply's native events (JSON lines) into AG-UI events, one JSON object a line",
		Usage:   "--to agui [--mode stream|run] [--thread-id ID] [--run-id ID] < events.jsonl",
		Run:     runConvert,
	})
}

// convertOptions are convert's flags.
type convertOptions struct {
	To, Mode        string
	ThreadID, RunID string
}

// runConvert reads native events from stdin and prints their AG-UI
// translation: by default (stream) the reference's conversion that
// GET /sessions/{id}/stream?format=agui sends, one AG-UI event per event;
// with --mode run the AG-UI 1.0 run that POST /agui/{agent_id} streams,
// ended at EOF as that route ends it (a parked reply's interrupts).
//
// A line that is not an event stops the conversion with its line number
// and exit status 2, after the lines before it were printed. A recorded
// SSE stream (GET /sessions/{id}/stream) is read as well: its "data:"
// prefixes are dropped and its id:, event: and comment lines skipped.
func runConvert(ctx context.Context, inv *invocation) int {
	c := commands[inv.Name]
	fs := inv.Flags(c)
	var opts convertOptions
	fs.StringVar(&opts.To, "to", "", "the protocol to convert to: agui (required)")
	fs.StringVar(&opts.Mode, "mode", "stream", "stream: the reference's conversion (?format=agui); run: the AG-UI 1.0 run of POST /agui")
	fs.StringVar(&opts.ThreadID, "thread-id", "", "with --mode run: RUN_STARTED's threadId (default: the REPLY_START's session_id)")
	fs.StringVar(&opts.RunID, "run-id", "", "with --mode run: RUN_STARTED's runId (default: the reply's id)")
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	switch {
	case fs.NArg() > 0:
		inv.Errorf("unexpected arguments %q: the events are read from stdin", fs.Args())
		return exitUsage
	case opts.To == "":
		inv.Errorf("--to is required (agui)")
		return exitUsage
	case opts.To != "agui":
		inv.Errorf("--to %q: the one protocol is agui", opts.To)
		return exitUsage
	case opts.Mode != "stream" && opts.Mode != "run":
		inv.Errorf("--mode %q: want stream or run", opts.Mode)
		return exitUsage
	case opts.Mode == "stream" && (opts.ThreadID != "" || opts.RunID != ""):
		inv.Errorf("--thread-id and --run-id go with --mode run: the stream takes its ids from the events")
		return exitUsage
	}
	w := bufio.NewWriterSize(inv.Stdout, 64<<10)
	err := convertStream(ctx, inv.Stdin, w, opts)
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		inv.Errorf("%v", err)
		var le *lineError
		if errors.As(err, &le) {
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

// convertStream translates the events of r into w, a line of w per AG-UI
// event.
func convertStream(ctx context.Context, r io.Reader, w io.Writer, opts convertOptions) error {
	var appendEvent func(dst []byte, e event.Event) []byte
	var finish func(dst []byte) []byte
	if opts.Mode == "run" {
		run := agui.NewRun(opts.ThreadID, opts.RunID)
		appendEvent, finish = run.Append, run.Finish
	} else {
		appendEvent = agui.NewConverter().Append
	}
	lines := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	var out []byte
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, readErr := lines.next()
		if readErr != nil && readErr != io.EOF {
			return fmt.Errorf("reading events: %w", readErr)
		}
		if payload, ok := eventPayload(line); ok {
			e, err := event.Decode(payload)
			if err != nil {
				return &lineError{lineNo, err}
			}
			out = appendEvent(out[:0], e)
			if _, err := w.Write(out); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			break
		}
	}
	if finish != nil {
		if _, err := w.Write(finish(out[:0])); err != nil {
			return err
		}
	}
	return nil
}

// eventPayload returns the event JSON a line holds: the line itself, or
// an SSE data line's payload; ok is false for a blank line and for the
// other lines of an SSE stream (id:, event:, retry:, comments).
func eventPayload(line []byte) (payload []byte, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == ':' {
		return nil, false
	}
	if p, found := bytes.CutPrefix(line, []byte("data:")); found {
		return bytes.TrimSpace(p), true
	}
	for _, field := range []string{"id:", "event:", "retry:"} {
		if bytes.HasPrefix(line, []byte(field)) {
			return nil, false
		}
	}
	return line, true
}
