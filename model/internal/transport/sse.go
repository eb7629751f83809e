package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
)

// MaxLine is the longest line the readers accept: audio and large tool
// arguments arrive as single SSE/NDJSON lines far beyond bufio's 64 KiB.
const MaxLine = 32 << 20

// Event is one server-sent event.
type Event struct {
	Name string // the "event:" field; "" for unnamed events
	Data []byte // the "data:" lines joined by "\n"; valid until the next step
	ID   string
}

// ErrLineTooLong is returned when a line exceeds MaxLine.
var ErrLineTooLong = errors.New("stream line too long")

// SSE reads server-sent events from r. Both "\n" and "\r\n" line endings
// are accepted; comment lines (": keep-alive") are skipped; multi-line data
// is joined with "\n". An event is dispatched at a blank line or at EOF.
// The Data slice is reused between steps.
func SSE(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4<<10), MaxLine)
		var ev Event
		var data []byte
		hasData := false
		flush := func() bool {
			if !hasData && ev.Name == "" {
				return true
			}
			ev.Data = data
			ok := yield(ev, nil)
			ev, data, hasData = Event{}, data[:0], false
			return ok
		}
		for sc.Scan() {
			line := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
			if len(line) == 0 {
				if !flush() {
					return
				}
				continue
			}
			if line[0] == ':' {
				continue
			}
			field, value, _ := bytes.Cut(line, []byte{':'})
			value = bytes.TrimPrefix(value, []byte{' '})
			switch string(field) {
			case "data":
				if hasData {
					data = append(data, '\n')
				}
				data = append(data, value...)
				hasData = true
			case "event":
				ev.Name = string(value)
			case "id":
				ev.ID = string(value)
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, MaxLine)
			}
			yield(Event{}, err)
			return
		}
		flush()
	}
}

// Lines reads newline-delimited records (NDJSON), skipping blank lines. The
// slice is reused between steps.
func Lines(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4<<10), MaxLine)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if !yield(line, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, MaxLine)
			}
			yield(nil, err)
		}
	}
}
