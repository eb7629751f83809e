package a2a

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
	"strconv"
	"strings"
	"sync/atomic"
)

// ClientConfig is what a Client is built from.
type ClientConfig struct {
	// URL is the agent's base URL, whose card is at
	// URL/.well-known/agent-card.json (for an agentscope server, its base
	// URL for its first agent or {base}/a2a/{agent_id} for another), or
	// the card's own URL (ending in .json).
	URL string
	// Header is sent with every request, the card's included (a bearer
	// token, agentscope's X-User-ID).
	Header http.Header
	// HTTPClient sends the requests (nil: one with no overall timeout,
	// since a reply and its stream last as long as they last; the
	// context of each call bounds it).
	HTTPClient *http.Client
}

// Client calls one remote A2A agent over the JSON-RPC binding of its
// card. It is safe for concurrent use.
type Client struct {
	card     AgentCard
	endpoint string
	header   http.Header
	hc       *http.Client
	ids      atomic.Int64
}

// maxEvent bounds one SSE event of a stream.
const maxEvent = 8 << 20

// Dial fetches the agent's card and returns a client of its JSON-RPC
// interface (A2A 1.0); a card without one is an error.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	cardURL := strings.TrimRight(cfg.URL, "/")
	if !strings.HasSuffix(cardURL, ".json") {
		cardURL += "/.well-known/agent-card.json"
	}
	req, err := http.NewRequestWithContext(ctx, "GET", cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card: %w", err)
	}
	setHeader(req, cfg.Header)
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxEvent))
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card %s: %w", cardURL, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("a2a: agent card %s: HTTP %d: %s", cardURL, res.StatusCode, cut(strings.TrimSpace(string(body)), 200))
	}
	var card AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		return nil, fmt.Errorf("a2a: agent card %s: %w", cardURL, err)
	}
	in, ok := card.Interface(BindingJSONRPC)
	if !ok {
		return nil, fmt.Errorf("a2a: agent card %s: no JSONRPC interface of A2A %s (it has %v)", cardURL, ProtocolVersion, card.SupportedInterfaces)
	}
	return &Client{card: card, endpoint: in.URL, header: cfg.Header, hc: hc}, nil
}

// Card is the agent's card, as fetched.
func (c *Client) Card() AgentCard { return c.card }

// Streaming reports whether the agent's card says it streams.
func (c *Client) Streaming() bool {
	return c.card.Capabilities.Streaming != nil && *c.card.Capabilities.Streaming
}

func setHeader(req *http.Request, h http.Header) {
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("A2A-Version", ProtocolVersion)
}

// post sends one JSON-RPC request.
func (c *Client) post(ctx context.Context, method string, params any, accept string) (*http.Response, json.RawMessage, error) {
	id := json.RawMessage(strconv.FormatInt(c.ids.Add(1), 10))
	p, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	body := marshal(Request{JSONRPC: "2.0", ID: id, Method: method, Params: p})
	req, err := http.NewRequestWithContext(ctx, "POST", c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	setHeader(req, c.header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("a2a: %s: %w", method, err)
	}
	return res, id, nil
}

// decodeResponse reads a JSON-RPC response body into result; an error
// response is its *Error.
func decodeResponse(method string, status int, body []byte, result any) error {
	var resp Response
	if err := json.Unmarshal(body, &resp); err != nil || resp.JSONRPC != "2.0" {
		return fmt.Errorf("a2a: %s: HTTP %d: not a JSON-RPC response: %s", method, status, cut(strings.TrimSpace(string(body)), 200))
	}
	if resp.Error != nil {
		return resp.Error
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		return fmt.Errorf("a2a: %s: result: %w", method, err)
	}
	return nil
}

// do is one call answered by one response.
func (c *Client) do(ctx context.Context, method string, params, result any) error {
	res, _, err := c.post(ctx, method, params, "application/json")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxEvent))
	if err != nil {
		return fmt.Errorf("a2a: %s: %w", method, err)
	}
	return decodeResponse(method, res.StatusCode, body, result)
}

// SendMessage sends a message and returns the task it made (or
// continued), or the agent's direct answer.
func (c *Client) SendMessage(ctx context.Context, req SendMessageRequest) (*SendMessageResponse, error) {
	var out SendMessageResponse
	if err := c.do(ctx, "SendMessage", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetTask returns a task.
func (c *Client) GetTask(ctx context.Context, req GetTaskRequest) (*Task, error) {
	var out Task
	if err := c.do(ctx, "GetTask", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelTask cancels a task and returns it.
func (c *Client) CancelTask(ctx context.Context, req CancelTaskRequest) (*Task, error) {
	var out Task
	if err := c.do(ctx, "CancelTask", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SendStreamingMessage sends a message and yields the stream's events
// until the server ends it; stopping the loop hangs up.
func (c *Client) SendStreamingMessage(ctx context.Context, req SendMessageRequest) iter.Seq2[StreamResponse, error] {
	return c.stream(ctx, "SendStreamingMessage", req)
}

// SubscribeToTask yields a task's events: the task, then its updates.
func (c *Client) SubscribeToTask(ctx context.Context, req SubscribeToTaskRequest) iter.Seq2[StreamResponse, error] {
	return c.stream(ctx, "SubscribeToTask", req)
}

func (c *Client) stream(ctx context.Context, method string, params any) iter.Seq2[StreamResponse, error] {
	return func(yield func(StreamResponse, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		res, _, err := c.post(ctx, method, params, "text/event-stream")
		if err != nil {
			yield(StreamResponse{}, err)
			return
		}
		defer res.Body.Close()
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			// An error before the stream began: one JSON-RPC response.
			body, err := io.ReadAll(io.LimitReader(res.Body, maxEvent))
			if err == nil {
				var sr StreamResponse
				err = decodeResponse(method, res.StatusCode, body, &sr)
				if err == nil {
					yield(sr, nil)
					return
				}
			}
			yield(StreamResponse{}, err)
			return
		}
		br := bufio.NewReader(res.Body)
		var data []byte
		for {
			line, err := readLine(br)
			if err != nil {
				if len(data) > 0 {
					yieldEvent(method, data, yield)
				} else if !errors.Is(err, io.EOF) && ctx.Err() == nil {
					yield(StreamResponse{}, fmt.Errorf("a2a: %s: %w", method, err))
				}
				return
			}
			switch {
			case len(line) == 0:
				if len(data) > 0 && !yieldEvent(method, data, yield) {
					return
				}
				data = data[:0]
			case line[0] == ':':
			case bytes.HasPrefix(line, []byte("data:")):
				v := bytes.TrimPrefix(line[5:], []byte(" "))
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, v...)
				if len(data) > maxEvent {
					yield(StreamResponse{}, fmt.Errorf("a2a: %s: an event over %d bytes", method, maxEvent))
					return
				}
			}
		}
	}
}

// yieldEvent decodes one event; false when the loop is over.
func yieldEvent(method string, data []byte, yield func(StreamResponse, error) bool) bool {
	var sr StreamResponse
	if err := decodeResponse(method, http.StatusOK, data, &sr); err != nil {
		yield(StreamResponse{}, err)
		return false
	}
	return yield(sr, nil)
}

// readLine reads one line without its "\n" or "\r\n", bounded by
// maxEvent.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxEvent {
			return nil, fmt.Errorf("a line over %d bytes", maxEvent)
		}
		if !isPrefix {
			return line, nil
		}
	}
}
