package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

func init() {
	register("fold", command{
		Summary: "fold a JSON-lines stream of one reply's events into the reply's Msg",
		Usage:   "[-reply-id ID -name NAME] < events.jsonl",
		Run:     runFold,
	})
}

// runFold reads events from stdin, one JSON object per line, and prints
// the assistant Msg they build, as (*message.Msg).AppendEvent folds them.
//
// Exit status 2 (with the line number on stderr) for a line that is not an
// event, a data delta that is not base64, or a stream with neither a
// REPLY_START first nor -reply-id. Events the reference's append_event
// logs and skips — another reply's, a delta or end for a block the reply
// lacks, a CUSTOM event — are skipped with a warning naming the line, so
// the output matches the reference's.
func runFold(ctx context.Context, inv *invocation) int {
	c := commands[inv.Name]
	fs := inv.Flags(c)
	var opts foldOptions
	fs.StringVar(&opts.ReplyID, "reply-id", "", "fold a continuation: the reply's id (default: the REPLY_START's reply_id)")
	fs.StringVar(&opts.Name, "name", "", "the agent's name (default: the REPLY_START's name)")
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	if fs.NArg() > 0 {
		inv.Errorf("unexpected arguments %q: the events are read from stdin", fs.Args())
		return exitUsage
	}
	opts.Warn = func(line int, err error) { inv.Errorf("line %d: skipped: %v", line, err) }
	m, err := foldStream(ctx, inv.Stdin, opts)
	if err != nil {
		inv.Errorf("%v", err)
		var le *lineError
		if errors.As(err, &le) {
			return exitUsage
		}
		return exitFailure
	}
	out := append(m.AppendJSON(make([]byte, 0, 4096)), '\n')
	if _, err := inv.Stdout.Write(out); err != nil {
		inv.Errorf("%v", err)
		return exitFailure
	}
	return exitOK
}

type foldOptions struct {
	// ReplyID and Name start the Msg without a REPLY_START (a reply
	// resumed after parking streams none). Empty: take them from the
	// REPLY_START that must then open the stream; Name alone overrides
	// the REPLY_START's name.
	ReplyID, Name string
	// Warn is told about each event skipped, by line number.
	Warn func(line int, err error)
}

// lineError is bad input at a line of the stream.
type lineError struct {
	Line int
	Err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *lineError) Unwrap() error { return e.Err }

var errNoStart = errors.New("the stream does not start with REPLY_START (pass -reply-id and -name to fold a continuation)")

// foldStream folds the events of r into one assistant Msg. The Msg's
// created_at is the first event's, so the same stream always prints the
// same Msg. Blank lines are ignored.
func foldStream(ctx context.Context, r io.Reader, opts foldOptions) (*message.Msg, error) {
	lines := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	var m *message.Msg
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, readErr := lines.next()
		if readErr != nil && readErr != io.EOF {
			return nil, fmt.Errorf("reading events: %w", readErr)
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			e, err := event.Decode(line)
			if err != nil {
				return nil, &lineError{lineNo, err}
			}
			if m == nil {
				if m, err = startMsg(e, opts); err != nil {
					return nil, &lineError{lineNo, err}
				}
			}
			if err := m.AppendEvent(e); err != nil {
				if errors.Is(err, message.ErrBadDelta) {
					return nil, &lineError{lineNo, err}
				}
				if opts.Warn != nil {
					opts.Warn(lineNo, err)
				}
			}
		}
		if readErr == io.EOF {
			break
		}
	}
	if m == nil {
		if opts.ReplyID == "" {
			return nil, &lineError{0, fmt.Errorf("no events: %w", errNoStart)}
		}
		return message.AssistantMsg(opts.Name, nil, message.WithID(opts.ReplyID))
	}
	return m, nil
}

// startMsg creates the empty reply Msg the first event e is folded into.
func startMsg(e event.Event, opts foldOptions) (*message.Msg, error) {
	id, name := opts.ReplyID, opts.Name
	if id == "" {
		rs, ok := e.(*event.ReplyStart)
		if !ok {
			return nil, fmt.Errorf("%s: %w", e.Type(), errNoStart)
		}
		id = rs.ReplyID
		if name == "" {
			name = rs.Name
		}
	}
	return message.AssistantMsg(name, nil, message.WithID(id), message.WithCreatedAt(e.Header().CreatedAt))
}

// lineReader hands out lines without a copy per line: a line that fits the
// reader's buffer is a slice of it, a longer one is gathered in long, which
// is reused. A line is valid until the next call (event.Decode keeps
// nothing of its input).
type lineReader struct {
	br   *bufio.Reader
	long []byte
}

// next returns the next line, its '\n' included; io.EOF comes with the
// last line, which may be empty.
func (l *lineReader) next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	l.long = append(l.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = l.br.ReadSlice('\n')
		l.long = append(l.long, line...)
	}
	return l.long, err
}
