package main

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// readSSE reads server-sent events from r and calls fn with each frame's
// id (-1 when it has none) and data, until fn returns false, r ends or
// fails. data is valid only during the call. Only one data line per
// frame is expected (both servers write one).
func readSSE(r io.Reader, fn func(id int64, data []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	id := int64(-1)
	var data []byte // the frame's data, copied: the reader's buffer moves on
	has := false
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A frame longer than the buffer: gather it.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if has && !fn(id, data) {
				return nil
			}
			id, has = -1, false
		case bytes.HasPrefix(line, []byte("id: ")):
			id, _ = strconv.ParseInt(string(line[4:]), 10, 64)
		case bytes.HasPrefix(line, []byte("data: ")):
			data, has = append(data[:0], line[6:]...), true
		}
	}
}

// eventType is the first "type" of an event's JSON: agentscope's events
// put the event's own type before any nested object that has one.
func eventType(data []byte) string {
	const key = `"type":"`
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return ""
	}
	rest := data[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
