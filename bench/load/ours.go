package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ours drives agentscope serve's native API: POST /sessions/, the
// session's SSE stream (GET /sessions/{id}/stream?since=N) and POST /chat/.
type ours struct {
	base, agent string
	hc          *http.Client
	pid         int
}

func (o *ours) name() string   { return "agentscope, SQLite" }
func (o *ours) serverPID() int { return o.pid }
func (o *ours) fanOut() bool   { return true }

func (o *ours) do(ctx context.Context, method, path, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, o.base+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-User-ID", "me")
	req.Header.Set("Content-Type", "application/json")
	res, err := o.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, res.Status, b)
	}
	return b, nil
}

func (o *ours) newSession(ctx context.Context) (string, error) {
	b, err := o.do(ctx, "POST", "/sessions/", fmt.Sprintf(`{"agent_id":%q}`, o.agent))
	if err != nil {
		return "", err
	}
	var r struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.SessionID == "" {
		return "", fmt.Errorf("POST /sessions/: %s", b)
	}
	return r.SessionID, nil
}

func userInput(text string) string {
	t, _ := json.Marshal(text)
	return `{"role":"user","name":"me","content":[{"type":"text","text":` + string(t) + `}]}`
}

func (o *ours) chat(ctx context.Context, sid, input string) error {
	b, err := o.do(ctx, "POST", "/chat/", fmt.Sprintf(`{"agent_id":%q,"session_id":%q,"input":%s}`, o.agent, sid, input))
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(`"started"`)) {
		return fmt.Errorf("POST /chat/: %s", b)
	}
	return nil
}

// oursReply is one reply as a client of the session's stream saw it.
type oursReply struct {
	first  time.Time // when its first frame was read
	end    time.Time // when its last frame was read
	events int
	last   int64    // the last frame's id
	types  []string // the first and last frames' types
	park   []byte   // the data of a REQUIRE_USER_CONFIRM that ended it
	err    error
}

// watch opens the session's stream after since and reads one reply from
// it in a goroutine: every frame's id must follow the one before (from
// since+1), until an event that ends a reply (REPLY_END, or a park).
func (o *ours) watch(ctx context.Context, sid string, since int64) (<-chan time.Time, <-chan oursReply, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/sessions/%s/stream?since=%d", o.base, sid, since), nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header.Set("X-User-ID", "me")
	res, err := o.hc.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("stream: %s", res.Status)
	}
	first := make(chan time.Time, 1)
	done := make(chan oursReply, 1)
	go func() {
		defer cancel()
		defer res.Body.Close()
		r := oursReply{last: since}
		err := readSSE(res.Body, func(id int64, data []byte) bool {
			now := time.Now()
			if r.events == 0 {
				r.first = now
				first <- now
			}
			r.events++
			if id != r.last+1 {
				r.err = fmt.Errorf("event %d of the reply has id %d after %d", r.events, id, r.last)
				return false
			}
			r.last = id
			typ := eventType(data)
			if r.events == 1 {
				r.types = append(r.types, typ)
			}
			switch typ {
			case "REPLY_END", "REQUIRE_EXTERNAL_EXECUTION":
			case "REQUIRE_USER_CONFIRM":
				r.park = append([]byte(nil), data...)
			default:
				return true
			}
			r.end = now
			r.types = append(r.types, typ)
			return false
		})
		if r.err == nil && err != nil {
			r.err = err
		}
		if r.err == nil && r.end.IsZero() {
			r.err = fmt.Errorf("the stream ended after %d events, before the reply did", r.events)
		}
		done <- r
	}()
	return first, done, nil
}

// reply posts input to the session and returns the time to its first
// event on a stream opened before, and the whole reply.
func (o *ours) reply(ctx context.Context, sid string, since int64, input string) (time.Duration, oursReply, error) {
	first, done, err := o.watch(ctx, sid, since)
	if err != nil {
		return 0, oursReply{}, err
	}
	t0 := time.Now()
	if err := o.chat(ctx, sid, input); err != nil {
		return 0, oursReply{}, err
	}
	r := <-done
	if r.err != nil {
		return 0, r, r.err
	}
	<-first
	return r.first.Sub(t0), r, nil
}

func (o *ours) firstEvent(ctx context.Context) (time.Duration, error) {
	sid, err := o.newSession(ctx)
	if err != nil {
		return 0, err
	}
	d, r, err := o.reply(ctx, sid, 0, userInput("hi"))
	if err != nil {
		return 0, err
	}
	if r.types[0] != "REPLY_START" || r.types[1] != "REPLY_END" {
		return 0, fmt.Errorf("a reply went %s … %s", r.types[0], r.types[1])
	}
	return d, nil
}

// oursParked is a session whose reply waits for a confirmation.
type oursParked struct {
	sid     string
	last    int64
	confirm string
}

func (o *ours) park(ctx context.Context) (parked, error) {
	sid, err := o.newSession(ctx)
	if err != nil {
		return nil, err
	}
	_, r, err := o.reply(ctx, sid, 0, userInput("save a note: buy milk"))
	if err != nil {
		return nil, err
	}
	if r.park == nil {
		return nil, fmt.Errorf("the reply ended %s, not parked", r.types[1])
	}
	var ev struct {
		ReplyID   string            `json:"reply_id"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
	}
	if err := json.Unmarshal(r.park, &ev); err != nil || len(ev.ToolCalls) != 1 {
		return nil, fmt.Errorf("REQUIRE_USER_CONFIRM: %s", r.park)
	}
	confirm := fmt.Sprintf(`{"type":"USER_CONFIRM_RESULT","reply_id":%q,"confirm_results":[{"confirmed":true,"tool_call":%s}]}`, ev.ReplyID, ev.ToolCalls[0])
	return &oursParked{sid: sid, last: r.last, confirm: confirm}, nil
}

func (o *ours) resume(ctx context.Context, p parked) (time.Duration, error) {
	pp := p.(*oursParked)
	d, r, err := o.reply(ctx, pp.sid, pp.last, pp.confirm)
	if err != nil {
		return 0, err
	}
	if r.types[1] != "REPLY_END" {
		return 0, fmt.Errorf("a resumed reply ended %s", r.types[1])
	}
	return d, nil
}

func (o *ours) stream(ctx context.Context, prompt string, clients int) (int, time.Duration, error) {
	sid, err := o.newSession(ctx)
	if err != nil {
		return 0, 0, err
	}
	dones := make([]<-chan oursReply, clients)
	for i := range dones {
		if _, dones[i], err = o.watch(ctx, sid, 0); err != nil {
			return 0, 0, err
		}
	}
	t0 := time.Now()
	if err := o.chat(ctx, sid, userInput(prompt)); err != nil {
		return 0, 0, err
	}
	events, end := 0, t0
	for i, done := range dones {
		r := <-done
		if r.err != nil {
			return 0, 0, fmt.Errorf("client %d: %w", i, r.err)
		}
		if i > 0 && r.events != events {
			return 0, 0, fmt.Errorf("client %d read %d events, client 0 %d", i, r.events, events)
		}
		events = r.events
		if r.end.After(end) {
			end = r.end
		}
	}
	return events, end.Sub(t0), nil
}

func (o *ours) longSession(ctx context.Context, replies int) ([]time.Duration, error) {
	sid, err := o.newSession(ctx)
	if err != nil {
		return nil, err
	}
	var last int64
	out := make([]time.Duration, replies)
	for i := range out {
		d, r, err := o.reply(ctx, sid, last, userInput("hi"))
		if err != nil {
			return nil, fmt.Errorf("reply %d: %w", i+1, err)
		}
		if r.types[0] != "REPLY_START" || r.types[1] != "REPLY_END" {
			return nil, fmt.Errorf("reply %d went %s … %s", i+1, r.types[0], r.types[1])
		}
		out[i], last = d, r.last
	}
	return out, nil
}
