package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/server/api"
)

// Client talks to one server as one user. Its zero value is not usable:
// BaseURL and User are required.
type Client struct {
	// BaseURL is the server's root, e.g. "http://127.0.0.1:8080".
	BaseURL string
	// User is sent as X-User-ID with every request.
	User string
	// Token, when set, is sent as the bearer token.
	Token string
	// HTTP carries the requests (nil: http.DefaultClient).
	HTTP *http.Client
}

// Error is a server's non-2xx answer, with its {"detail"} as text.
type Error struct {
	Status int
	Detail string
}

func (e *Error) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Detail) }

// maxAnswer bounds the body of one JSON answer the client reads.
const maxAnswer = 64 << 20

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-User-ID", c.User)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// call does one JSON request and decodes the answer into out (if not nil).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return err
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return answerError(res.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return nil
}

// answerError reads a {"detail"} body: a string, or a validation list
// shown as JSON.
func answerError(status int, data []byte) *Error {
	detail := strings.TrimSpace(string(data))
	var e api.Error
	if json.Unmarshal(data, &e) == nil && len(e.Detail) > 0 {
		var s string
		if json.Unmarshal(e.Detail, &s) == nil {
			detail = s
		} else {
			detail = string(e.Detail)
		}
	}
	return &Error{Status: status, Detail: detail}
}

func sessionPath(id string, rest string) string {
	return "/sessions/" + url.PathEscape(id) + rest
}

// Health is GET /health.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	return h, c.call(ctx, "GET", "/health", nil, &h)
}

// Agents lists the agents the user may talk to.
func (c *Client) Agents(ctx context.Context) (api.AgentList, error) {
	var l api.AgentList
	return l, c.call(ctx, "GET", "/agent/", nil, &l)
}

// AgentTools is the tools of agent id, as its model is sent them.
func (c *Client) AgentTools(ctx context.Context, id string) ([]api.ToolSchema, error) {
	var t api.AgentTools
	return t.Tools, c.call(ctx, "GET", "/agent/"+url.PathEscape(id)+"/tools", nil, &t)
}

// CreateSession creates a session of agentID and returns its id.
func (c *Client) CreateSession(ctx context.Context, agentID, name string) (string, error) {
	body := map[string]string{"agent_id": agentID}
	if name != "" {
		body["name"] = name
	}
	var out api.Created
	return out.SessionID, c.call(ctx, "POST", "/sessions/", body, &out)
}

// Sessions lists the user's sessions (of agentID, when set).
func (c *Client) Sessions(ctx context.Context, agentID string) (api.SessionList, error) {
	q := ""
	if agentID != "" {
		q = "?agent_id=" + url.QueryEscape(agentID)
	}
	var l api.SessionList
	return l, c.call(ctx, "GET", "/sessions/"+q, nil, &l)
}

// Status is what the session of agentID is doing: running, idle,
// awaiting_permission or awaiting_external_result.
func (c *Client) Status(ctx context.Context, sessionID, agentID string) (string, error) {
	var st api.Status
	err := c.call(ctx, "GET", sessionPath(sessionID, "/status?agent_id="+url.QueryEscape(agentID)), nil, &st)
	return st.Status, err
}

// Messages is a page of the session's transcript: the limit messages
// before before ("": the newest), oldest first.
func (c *Client) Messages(ctx context.Context, sessionID, before string, limit int) (api.Messages, error) {
	q := url.Values{}
	if before != "" {
		q.Set("before", before)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := sessionPath(sessionID, "/messages")
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var m api.Messages
	return m, c.call(ctx, "GET", path, nil, &m)
}

// Chat starts a run of the session on input: a user Msg, a list of them,
// or a USER_CONFIRM_RESULT or EXTERNAL_EXECUTION_RESULT event, as JSON.
// Its events come on the session's stream.
func (c *Client) Chat(ctx context.Context, agentID, sessionID string, input json.RawMessage) error {
	return c.call(ctx, "POST", "/chat/", api.ChatRequest{AgentID: agentID, SessionID: sessionID, Input: input}, nil)
}

// Interrupt interrupts the session's run, or closes its parked reply.
func (c *Client) Interrupt(ctx context.Context, sessionID string) error {
	return c.call(ctx, "POST", sessionPath(sessionID, "/interrupt"), nil, nil)
}

// Frame is one event of a session's stream with its log sequence.
type Frame struct {
	Seq   int64
	Event event.Event
}

// ErrStreamClosed ends a stream the server closed (a cut slow client, a
// deleted session, a shutdown): reconnect from the last sequence.
var ErrStreamClosed = errors.New("client: stream closed by the server")

// Stream opens the session's SSE stream once: the events after the
// sequence after (negative: none given, so the run in progress, or from
// now), then live ones, until ctx ends (nothing more) or the stream
// breaks (the error: ErrStreamClosed, or what broke). opened, when not
// nil, is called once the server has accepted the stream, so an input
// posted after it cannot be missed. Reconnecting is the caller's: with
// the last Frame.Seq it got, it loses nothing.
func (c *Client) Stream(ctx context.Context, sessionID string, after int64, opened func()) iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		req, err := c.request(ctx, "GET", sessionPath(sessionID, "/stream"), nil)
		if err != nil {
			yield(Frame{}, err)
			return
		}
		if after >= 0 {
			req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
		}
		req.Header.Set("Accept", "text/event-stream")
		res, err := c.httpClient().Do(req)
		if err != nil {
			if ctx.Err() == nil {
				yield(Frame{}, err)
			}
			return
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
			yield(Frame{}, answerError(res.StatusCode, b))
			return
		}
		if opened != nil {
			opened()
		}
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 8<<20)
		var seq int64 = -1
		var data []byte
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case len(line) == 0: // the end of a frame
				if data == nil {
					continue
				}
				ev, err := event.Decode(data)
				data = nil
				if err != nil {
					yield(Frame{}, fmt.Errorf("client: stream: %w", err))
					return
				}
				if !yield(Frame{Seq: seq, Event: ev}, nil) {
					return
				}
			case bytes.HasPrefix(line, []byte("id:")):
				seq, _ = strconv.ParseInt(strings.TrimSpace(string(line[3:])), 10, 64)
			case bytes.HasPrefix(line, []byte("data:")):
				data = append(data, bytes.TrimPrefix(line[5:], []byte(" "))...)
			}
		}
		if ctx.Err() != nil {
			return
		}
		if err := sc.Err(); err != nil {
			yield(Frame{}, fmt.Errorf("client: stream: %w", err))
			return
		}
		yield(Frame{}, ErrStreamClosed)
	}
}
