package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/agui"
	"github.com/agentscope-go/agentscope/session"
)

// aguiFrame is one frame of a ?format=agui stream: its id line and data.
type aguiFrame struct {
	seq  int64
	data string
}

// readAGUIStream opens GET /sessions/{sid}/stream with query and reads n
// data frames and, when beat is set, one heartbeat after them, checking
// that every frame has its id and ends with a blank line (LF).
func (e *env) readAGUIStream(sid, query string, n int, beat bool) []aguiFrame {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.hs.URL+"/sessions/"+sid+"/stream"+query, nil)
	req.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(res.Body)
	var frames []aguiFrame
	cur := aguiFrame{seq: -1}
	for len(frames) < n || beat {
		line, err := br.ReadString('\n')
		if err != nil {
			e.t.Fatalf("after %d frames: %v", len(frames), err)
		}
		switch {
		case line == "\n":
			if cur.data != "" {
				if cur.seq < 0 {
					e.t.Fatalf("frame %s without an id", cur.data)
				}
				frames = append(frames, cur)
			}
			cur = aguiFrame{seq: -1}
		case line == ":\n":
			if len(frames) == n {
				beat = false
			}
		case strings.HasPrefix(line, "id: "):
			cur.seq, _ = strconv.ParseInt(strings.TrimSpace(line[4:]), 10, 64)
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimSuffix(line[6:], "\n")
		default:
			e.t.Fatalf("unexpected line %q", line)
		}
	}
	return frames
}

// jsonEqual compares two JSON values as values (numbers as numbers).
func jsonEqual(a, b any) bool {
	norm := func(v any) any {
		raw, _ := json.Marshal(v)
		var out any
		json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// GET /sessions/{id}/stream?format=agui reproduces every case of the
// reference's fixture: each case's native events, logged in a session of
// their own, come out of the route as the fixture asserts, byte for byte
// the conversion of a Converter of the stream's own, each frame with its
// native id, and heartbeats pass through.
func TestStreamFormatAGUIFixture(t *testing.T) {
	var f struct {
		Cases []map[string]any `json:"cases"`
	}
	fixture.Load(t, &f, "spec", "fixtures", "agui_protocol_test.json")
	if len(f.Cases) == 0 {
		t.Fatal("the fixture has no cases")
	}
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	for i, c := range f.Cases {
		t.Run(fmt.Sprintf("case%02d", i), func(t *testing.T) {
			var raws []any
			if ev, ok := c["event"]; ok {
				raws = []any{ev}
			} else {
				raws, _ = c["sequence"].([]any)
			}
			want, _ := c["expect"].(map[string]any)
			if want == nil {
				want, _ = c["expect_last"].(map[string]any)
			}
			if len(raws) == 0 || want == nil {
				t.Fatalf("a case without events or expectation: %v", c)
			}
			sid := fmt.Sprintf("fx-%02d", i)
			k := session.Key{UserID: user, SessionID: sid}
			if _, err := e.srv.Engine().CreateSession(ctx, engine.NewSession{ID: sid, UserID: user, AgentID: "a1"}); err != nil {
				t.Fatal(err)
			}
			var logged []json.RawMessage
			conv := agui.NewConverter()
			var wantLines []string
			for _, raw := range raws {
				b, _ := json.Marshal(raw)
				ev, err := event.Decode(b)
				if err != nil {
					t.Fatalf("%s: %v", b, err)
				}
				// Logged as a run logs it (id and created_at stamped), so
				// both sides convert the same event.
				js := event.Marshal(ev)
				logged = append(logged, js)
				again, err := event.Decode(js)
				if err != nil {
					t.Fatal(err)
				}
				wantLines = append(wantLines, strings.TrimSuffix(string(conv.Append(nil, again)), "\n"))
			}
			// Logged by a run of the test's own, through the store's one
			// write path.
			run, err := e.store.BeginRun(ctx, k, session.RunBegin{Owner: "fixture", TTL: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			w, err := e.store.FinishRun(ctx, k, run.Lease, session.RunEnd{Events: logged, Status: session.StatusIdle})
			if err != nil {
				t.Fatal(err)
			}
			first := w.First
			frames := e.readAGUIStream(sid, "?format=agui&since=0", len(raws), i == 0)
			for j, fr := range frames {
				if fr.seq != first+int64(j) {
					t.Errorf("frame %d has id %d, want %d", j, fr.seq, first+int64(j))
				}
				if fr.data != wantLines[j] {
					t.Errorf("frame %d:\n got %s\nwant %s", j, fr.data, wantLines[j])
				}
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(frames[len(frames)-1].data), &got); err != nil {
				t.Fatal(err)
			}
			for key, w := range want {
				if !jsonEqual(got[key], w) {
					t.Errorf("%s = %v, want %v", key, got[key], w)
				}
			}
			absent, _ := c["absent_keys"].([]any)
			for _, key := range absent {
				if _, ok := got[key.(string)]; ok {
					t.Errorf("%s present, want it absent", key)
				}
			}
			value, _ := got["value"].(map[string]any)
			if c["value_is_object"] == true && value == nil {
				t.Errorf("value is %T, want an object", got["value"])
			}
			ev, _ := c["expect_value"].(map[string]any)
			for key, w := range ev {
				if !jsonEqual(value[key], w) {
					t.Errorf("value.%s = %v, want %v", key, value[key], w)
				}
			}
			keys, _ := c["value_has_keys"].([]any)
			for _, key := range keys {
				if _, ok := value[key.(string)]; !ok {
					t.Errorf("value has no %s", key)
				}
			}
			if strings.Contains(strings.Join(wantLines, ""), "null") {
				t.Errorf("a null in %v", wantLines)
			}
		})
	}
	if r := e.do("GET", "/sessions/fx-00/stream?format=xml", user, ""); r.code != 422 || !strings.Contains(r.body, "format") {
		t.Fatalf("an unknown format: %d %s", r.code, r.body)
	}
}

// A live run followed with ?format=agui: the reply's events converted as
// they come, from RUN_STARTED (threadId the session, runId the reply) to
// RUN_FINISHED, each frame under its native sequence; the native stream
// beside it is unchanged.
func TestStreamFormatAGUILive(t *testing.T) {
	e := newEnv(t, []scripted.Turn{textTurn}, nil)
	sid := e.createSession()
	native := e.openStream(sid, "")
	done := make(chan []aguiFrame, 1)
	go func() { done <- e.readAGUIStream(sid, "?format=agui&agent_id=a1&since=0", 8, false) }()
	// The AG-UI stream reads from the log's start, so it may open after
	// the chat; the native one is open already.
	if r := e.chat(sid, userMsg("hi")); r.code != 200 {
		t.Fatalf("chat: %d %s", r.code, r.body)
	}
	evs := native.until(event.TypeReplyEnd)
	frames := <-done
	var kinds []string
	for i, fr := range frames {
		var o map[string]any
		if err := json.Unmarshal([]byte(fr.data), &o); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, o["type"].(string))
		if fr.seq != evs[i].seq {
			t.Errorf("frame %d has id %d, the native event %d", i, fr.seq, evs[i].seq)
		}
		if i == 0 && (o["threadId"] != sid || o["runId"] != evs[0].ev.(*event.ReplyStart).ReplyID) {
			t.Errorf("RUN_STARTED %v", o)
		}
	}
	if got := strings.Join(kinds, " "); got != "RUN_STARTED STEP_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END STEP_FINISHED RUN_FINISHED" {
		t.Fatalf("types %s (native %s)", got, types(evs))
	}
}
