package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// adk drives adk-go's REST API: POST /apps/{app}/users/{user}/sessions,
// then POST /run_sse with streaming on, whose response is the run's
// events, ending with the run.
type adk struct {
	base string
	hc   *http.Client
	pid  int
	n    atomic.Int64
}

func (a *adk) name() string   { return "adk-go v2.2.0, in memory" }
func (a *adk) serverPID() int { return a.pid }
func (a *adk) fanOut() bool   { return false }

func (a *adk) newSession(ctx context.Context) (string, error) {
	sid := fmt.Sprintf("s%d", a.n.Add(1))
	req, err := http.NewRequestWithContext(ctx, "POST", fmt.Sprintf("%s/apps/%s/users/%s/sessions/%s", a.base, adkApp, adkUser, sid), nil)
	if err != nil {
		return "", err
	}
	res, err := a.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("create session: %s: %s", res.Status, b)
	}
	return sid, nil
}

// adkEvent is what the load client reads of adk-go's events.
type adkEvent struct {
	Partial bool `json:"partial"`
	Content *struct {
		Parts []struct {
			Text         string `json:"text"`
			Thought      bool   `json:"thought"`
			FunctionCall *struct {
				ID   string         `json:"id"`
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			} `json:"functionCall"`
		} `json:"parts"`
	} `json:"content"`
	Error string `json:"error"`
}

// adkRun is one run's stream as the client read it.
type adkRun struct {
	first, end time.Time
	frames     [][]byte
}

// run posts message (a genai.Content as JSON) to /run_sse and reads the
// stream to its end. The frames are kept, and checked after the run, so
// decoding them is not charged to the run.
func (a *adk) run(ctx context.Context, sid, message string) (time.Duration, adkRun, error) {
	body := fmt.Sprintf(`{"appName":%q,"userId":%q,"sessionId":%q,"newMessage":%s,"streaming":true}`, adkApp, adkUser, sid, message)
	req, err := http.NewRequestWithContext(ctx, "POST", a.base+"/run_sse", strings.NewReader(body))
	if err != nil {
		return 0, adkRun{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	res, err := a.hc.Do(req)
	if err != nil {
		return 0, adkRun{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return 0, adkRun{}, fmt.Errorf("run_sse: %s: %s", res.Status, b)
	}
	var r adkRun
	err = readSSE(res.Body, func(_ int64, data []byte) bool {
		now := time.Now()
		if len(r.frames) == 0 {
			r.first = now
		}
		r.end = now
		r.frames = append(r.frames, append([]byte(nil), data...))
		return true
	})
	if err != nil {
		return 0, r, err
	}
	if len(r.frames) == 0 {
		return 0, r, fmt.Errorf("run_sse: no event")
	}
	return r.first.Sub(t0), r, nil
}

// check decodes a run's events: the partial texts, in order, must make
// each aggregate text that follows them, and no event may be an error.
// It returns the last aggregate text and the confirmation request's call
// id, if any.
func (r adkRun) check() (text, confirmID string, err error) {
	var partial strings.Builder
	for i, f := range r.frames {
		var ev adkEvent
		if err := json.Unmarshal(f, &ev); err != nil {
			return "", "", fmt.Errorf("event %d: %w: %s", i+1, err, f)
		}
		if ev.Error != "" {
			return "", "", fmt.Errorf("event %d: %s", i+1, ev.Error)
		}
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if p.FunctionCall != nil && p.FunctionCall.Name == "adk_request_confirmation" {
				confirmID = p.FunctionCall.ID
			}
			if p.Text == "" {
				continue
			}
			if ev.Partial {
				partial.WriteString(p.Text)
				continue
			}
			if partial.Len() > 0 && partial.String() != p.Text {
				return "", "", fmt.Errorf("event %d: the chunks made %q, the aggregate is %q", i+1, partial.String(), p.Text)
			}
			partial.Reset()
			text = p.Text
		}
	}
	return text, confirmID, nil
}

func adkText(s string) string {
	t, _ := json.Marshal(s)
	return `{"role":"user","parts":[{"text":` + string(t) + `}]}`
}

func (a *adk) firstEvent(ctx context.Context) (time.Duration, error) {
	sid, err := a.newSession(ctx)
	if err != nil {
		return 0, err
	}
	d, r, err := a.run(ctx, sid, adkText("hi"))
	if err != nil {
		return 0, err
	}
	if text, _, err := r.check(); err != nil || !strings.Contains(text, `You said: "hi"`) {
		return 0, fmt.Errorf("a reply: %q, %v", text, err)
	}
	return d, nil
}

type adkParked struct{ sid, callID string }

func (a *adk) park(ctx context.Context) (parked, error) {
	sid, err := a.newSession(ctx)
	if err != nil {
		return nil, err
	}
	_, r, err := a.run(ctx, sid, adkText("save a note: buy milk"))
	if err != nil {
		return nil, err
	}
	_, id, err := r.check()
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, fmt.Errorf("the run asked for no confirmation")
	}
	return &adkParked{sid: sid, callID: id}, nil
}

func (a *adk) resume(ctx context.Context, p parked) (time.Duration, error) {
	pp := p.(*adkParked)
	msg := fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"id":%q,"name":"adk_request_confirmation","response":{"confirmed":true}}}]}`, pp.callID)
	d, r, err := a.run(ctx, pp.sid, msg)
	if err != nil {
		return 0, err
	}
	if text, _, err := r.check(); err != nil || !strings.Contains(text, `saved the note \"buy milk\"`) && !strings.Contains(text, `saved the note "buy milk"`) {
		return 0, fmt.Errorf("a resumed reply: %q, %v", text, err)
	}
	return d, nil
}

func (a *adk) stream(ctx context.Context, prompt string, clients int) (int, time.Duration, error) {
	if clients != 1 {
		return 0, 0, errNoFanOut
	}
	sid, err := a.newSession(ctx)
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	_, r, err := a.run(ctx, sid, adkText(prompt))
	if err != nil {
		return 0, 0, err
	}
	if text, _, err := r.check(); err != nil || !strings.HasSuffix(text, "I can use the save_note tool.") {
		return 0, 0, fmt.Errorf("a streamed reply: %v", err)
	}
	return len(r.frames), r.end.Sub(t0), nil
}

func (a *adk) longSession(ctx context.Context, replies int) ([]time.Duration, error) {
	sid, err := a.newSession(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, replies)
	for i := range out {
		d, r, err := a.run(ctx, sid, adkText("hi"))
		if err != nil {
			return nil, fmt.Errorf("reply %d: %w", i+1, err)
		}
		if _, _, err := r.check(); err != nil {
			return nil, fmt.Errorf("reply %d: %w", i+1, err)
		}
		out[i] = d
	}
	return out, nil
}
