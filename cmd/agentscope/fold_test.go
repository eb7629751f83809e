package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
)

type goldenTrace struct {
	Steps []struct {
		Stream []struct {
			Event json.RawMessage `json:"event"`
		} `json:"stream"`
	} `json:"steps"`
	Folded []struct {
		ReplyID string          `json:"reply_id"`
		Msg     json.RawMessage `json:"msg"`
	} `json:"folded_replies"`
}

// replyStreams groups a trace's streamed events by reply_id, in stream
// order across steps: a reply parked on a human spans several steps.
func replyStreams(t *testing.T, g *goldenTrace) (order []string, lines map[string][][]byte) {
	lines = map[string][][]byte{}
	for _, st := range g.Steps {
		for _, item := range st.Stream {
			if item.Event == nil {
				continue // a {"msg": …} item
			}
			var head struct {
				ReplyID *string `json:"reply_id"`
			}
			if err := json.Unmarshal(item.Event, &head); err != nil {
				t.Fatal(err)
			}
			if head.ReplyID == nil {
				t.Fatalf("an event without reply_id in a reply stream: %s", item.Event)
			}
			rid := *head.ReplyID
			if _, seen := lines[rid]; !seen {
				order = append(order, rid)
			}
			// One event per line: the trace's pretty-printing goes.
			var line bytes.Buffer
			if err := json.Compact(&line, item.Event); err != nil {
				t.Fatal(err)
			}
			lines[rid] = append(lines[rid], line.Bytes())
		}
	}
	return order, lines
}

// TestFoldGoldenTraces folds each reply of every golden trace with the fold
// command's code and compares the result with the reference's own fold
// (folded_replies), after normalizing ids and timestamps.
func TestFoldGoldenTraces(t *testing.T) {
	files, err := filepath.Glob(fixture.Path(t, "conformance", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden traces (%v)", err)
	}
	replies := 0
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var g goldenTrace
			if err := json.Unmarshal(data, &g); err != nil {
				t.Fatal(err)
			}
			order, streams := replyStreams(t, &g)
			var folded []string
			for _, f := range g.Folded {
				folded = append(folded, f.ReplyID)
			}
			if !slices.Equal(order, folded) {
				t.Fatalf("replies streamed %v, folded %v", order, folded)
			}
			for _, f := range g.Folded {
				in := bytes.Join(streams[f.ReplyID], []byte("\n"))
				var warnings []string
				m, err := foldStream(context.Background(), bytes.NewReader(in), foldOptions{
					Warn: func(line int, err error) { warnings = append(warnings, fmt.Sprintf("line %d: %v", line, err)) },
				})
				if err != nil {
					t.Fatalf("reply %s: %v", f.ReplyID, err)
				}
				if len(warnings) > 0 {
					t.Errorf("reply %s: the reference skips nothing here, we skipped: %v", f.ReplyID, warnings)
				}
				got, want := normalize(t, m.AppendJSON(nil)), normalize(t, f.Msg)
				if err := fixture.Match(got, want, nil); err != nil {
					t.Fatalf("reply %s: %v\n got %s\nwant %s", f.ReplyID, err, m.AppendJSON(nil), f.Msg)
				}
				replies++
			}
		})
	}
	if replies < len(files) {
		t.Fatalf("compared %d replies over %d traces", replies, len(files))
	}
}

var (
	idPattern = regexp.MustCompile(`^(<id:\d+>|[0-9a-f]{32})$`)
	tsPattern = regexp.MustCompile(`^(<ts>|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?)$`)
)

// normalize parses a JSON document and rewrites its volatile values as the
// conformance README prescribes: generated ids ("<id:N>" or 32 hex digits)
// become <id:1>, <id:2>… by first appearance, timestamps become <ts>. Keys
// are visited in sorted order, the same on both sides of a comparison, so
// two documents normalize equal exactly when their ids relate the same way.
func normalize(t *testing.T, doc []byte) any {
	t.Helper()
	v, err := fixture.Parse(doc)
	if err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	ids := map[string]string{}
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			switch {
			case idPattern.MatchString(v):
				if _, ok := ids[v]; !ok {
					ids[v] = fmt.Sprintf("<id:%d>", len(ids)+1)
				}
				return ids[v]
			case tsPattern.MatchString(v):
				return "<ts>"
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				v[k] = walk(v[k])
			}
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		}
		return v
	}
	return walk(v)
}

// TestNormalize pins the normalization the golden comparison relies on.
func TestNormalize(t *testing.T) {
	a := normalize(t, []byte(`{"b":"<id:7>","a":["<id:9>","2026-08-22T09:14:04.512348","call_1"],"c":"<id:9>"}`))
	b := normalize(t, []byte(`{"a":["6f1e0c3a9d2b4c55a7e8f90123456789","<ts>","call_1"],"b":"<id:1>","c":"6f1e0c3a9d2b4c55a7e8f90123456789"}`))
	if err := fixture.Match(a, b, nil); err != nil {
		t.Fatal(err)
	}
	c := normalize(t, []byte(`{"a":["<id:1>","<ts>","call_1"],"b":"<id:2>","c":"<id:2>"}`))
	if err := fixture.Match(a, c, nil); err == nil {
		t.Fatal("different id relations normalized equal")
	}
}

// TestFoldFixtureWalk runs the command over the reference's 39-event walk
// (a continuation: it has no REPLY_START), followed by its wrong-reply and
// ghost events, which are skipped with warnings and change nothing.
func TestFoldFixtureWalk(t *testing.T) {
	var fx struct {
		Initial struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"initial_msg"`
		Steps []struct {
			Event    json.RawMessage `json:"event"`
			Expected any             `json:"expected_msg"`
		} `json:"steps"`
		WrongReply json.RawMessage   `json:"wrong_reply_id_event"`
		Ghosts     []json.RawMessage `json:"ghost_events"`
	}
	fixture.Load(t, &fx, "spec", "fixtures", "event_to_message_test.json")
	var events []json.RawMessage
	for _, st := range fx.Steps {
		events = append(events, st.Event)
	}
	events = append(append(events, fx.WrongReply), fx.Ghosts...)
	var in bytes.Buffer
	for _, raw := range events {
		if err := json.Compact(&in, raw); err != nil {
			t.Fatal(err)
		}
		in.WriteByte('\n')
	}
	code, stdout, stderr := runIn(t, in.String(), "fold", "-reply-id", fx.Initial.ID, "-name", fx.Initial.Name)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := fixture.Parse([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	created := got.(map[string]any)["created_at"]
	want := fx.Steps[len(fx.Steps)-1].Expected
	if err := fixture.Match(got, want, map[string]any{"<ANY_STRING>": nil, "<UNCHANGED_FROM_INITIAL>": created}); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	skipped := strings.Count(stderr, ": skipped: ")
	if want := 1 + len(fx.Ghosts); skipped != want || len(fx.Ghosts) == 0 {
		t.Fatalf("%d warnings, want %d:\n%s", skipped, want, stderr)
	}
	for i := range 1 + len(fx.Ghosts) {
		if line := fmt.Sprintf("line %d: skipped", len(fx.Steps)+1+i); !strings.Contains(stderr, line) {
			t.Errorf("no warning for %s", line)
		}
	}
}

// TestFoldLongLines: a line longer than the read buffer (a 3 MB base64
// delta) folds whole, and so does a last line without a newline.
func TestFoldLongLines(t *testing.T) {
	chunk := strings.Repeat("QUJD", 3<<20/4*3/3) // 3 MiB of base64 ("ABC"…)
	lines := []string{
		`{"id":"e1","created_at":"C","type":"REPLY_START","session_id":"s","reply_id":"r","name":"n"}`,
		`{"id":"e2","created_at":"C","type":"DATA_BLOCK_START","reply_id":"r","block_id":"b","media_type":"image/png"}`,
		`{"id":"e3","created_at":"C","type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"b","media_type":"image/png","data":"` + chunk + `"}`,
		`{"id":"e4","created_at":"C","type":"DATA_BLOCK_DELTA","reply_id":"r","block_id":"b","media_type":"image/png","data":"REVG"}`,
	}
	m, err := foldStream(context.Background(), strings.NewReader(strings.Join(lines, "\n")), foldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := string(m.AppendJSON(nil))
	if !strings.Contains(out, `"data":"`+chunk+`REVG"`) {
		t.Fatalf("folded data is not the two chunks (output %d bytes)", len(out))
	}
}
