package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/tool"
)

// The reference MCPTool's permission messages.
const (
	ReadOnlyMessage = "This is a read-only MCP tool. Allowing execution."
	AskMessage      = "MCP tools must be explicitly allowed by the user."
)

// ErrorPrefix starts the text of every error result of a failed MCP call
// (the reference toolkit's McpError text).
const ErrorPrefix = "Error occurred when calling MCP tool: "

// CallError is the error of a call that did not get a result from the
// server; its text is ErrorPrefix followed by the cause.
type CallError struct {
	Tool string
	Err  error
}

func (e *CallError) Error() string { return ErrorPrefix + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// remoteTool is one tool of a connected server.
type remoteTool struct {
	c                         *Client
	name, remote, description string
	schema                    json.RawMessage
	readOnly                  bool
}

var (
	_ tool.Tool          = (*remoteTool)(nil)
	_ permission.Subject = (*remoteTool)(nil)
)

func (t *remoteTool) Name() string                 { return t.name }
func (t *remoteTool) Description() string          { return t.description }
func (t *remoteTool) InputSchema() json.RawMessage { return t.schema }
func (t *remoteTool) Flags() tool.Flags            { return tool.Flags{ReadOnly: t.readOnly} }

// ReadOnly reports the server's readOnlyHint.
func (t *remoteTool) ReadOnly(map[string]any) bool { return t.readOnly }

// CheckPermissions is the reference MCPTool's policy: allow a read-only
// tool, ask for any other.
func (t *remoteTool) CheckPermissions(context.Context, map[string]any, *permission.Context) permission.Decision {
	if t.readOnly {
		return permission.Decision{Behavior: block.Allow, Message: ReadOnlyMessage}
	}
	return permission.Decision{Behavior: block.Ask, Message: AskMessage}
}

// MatchRule matches only rules without content: an MCP tool has no
// argument patterns, rules name it whole (server and tool).
func (t *remoteTool) MatchRule(ruleContent string, _ map[string]any) bool { return ruleContent == "" }

// SuggestRules proposes allowing the tool.
func (t *remoteTool) SuggestRules(map[string]any) []block.PermissionRule {
	return permission.DefaultSuggestions(t.name)
}

type callResult struct {
	r   *sdk.CallToolResult
	err error
}

// Call calls the tool on the server. Progress notifications come first,
// as text deltas; the result is the last chunk.
func (t *remoteTool) Call(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return func(yield func(tool.Chunk, error) bool) {
		cn, err := t.c.session(ctx)
		if err != nil {
			if ctx.Err() != nil { // interrupted while waiting to reconnect
				err = ctx.Err()
			} else {
				err = &CallError{Tool: t.name, Err: err}
			}
			yield(tool.Chunk{}, err)
			return
		}
		callCtx, cancel := ctx, context.CancelFunc(func() {})
		if d := t.c.cfg.CallTimeout; d > 0 {
			callCtx, cancel = context.WithTimeout(ctx, d)
		}
		defer cancel()
		token := t.c.newToken()
		progress := make(chan *sdk.ProgressNotificationParams, 64)
		t.c.progress.Store(token, progress)
		defer t.c.progress.Delete(token)

		params := &sdk.CallToolParams{Name: t.remote, Arguments: input}
		params.SetProgressToken(token)
		done := make(chan callResult, 1)
		go func() { // exits when the call returns, which callCtx bounds
			r, err := cn.sess.CallTool(callCtx, params)
			if cn.listChanged {
				// The call may have changed the server's tools, and its
				// notification may come after this result: the next
				// model call re-lists them (Client.Middleware).
				t.c.changes.Add(1)
			}
			done <- callResult{r, err}
		}()
		for {
			select {
			case p := <-progress:
				if !yield(tool.Text(progressText(p)), nil) {
					cancel()
					<-done
					return
				}
			case res := <-done:
				yield(t.result(ctx, callCtx, cn, res))
				return
			}
		}
	}
}

func progressText(p *sdk.ProgressNotificationParams) string {
	s := "[progress " + strconv.FormatFloat(p.Progress, 'g', -1, 64)
	if p.Total > 0 {
		s += "/" + strconv.FormatFloat(p.Total, 'g', -1, 64)
	}
	s += "]"
	if p.Message != "" {
		s += " " + p.Message
	}
	return s + "\n"
}

func (t *remoteTool) result(ctx, callCtx context.Context, cn *conn, res callResult) (tool.Chunk, error) {
	if err := res.err; err != nil {
		switch {
		case ctx.Err() != nil:
			// Interrupted: the SDK has sent notifications/cancelled; the
			// runner answers the call with the interrupted result.
			return tool.Chunk{}, ctx.Err()
		case callCtx.Err() != nil:
			return tool.Chunk{}, &CallError{Tool: t.name, Err: fmt.Errorf(
				"the call to %q timed out after %s", t.remote, t.c.cfg.CallTimeout)}
		}
		if broken(err) {
			t.c.drop(cn, err)
			return tool.Chunk{}, &CallError{Tool: t.name, Err: fmt.Errorf(
				"the connection to the MCP server %q failed (%v); the next call reconnects", t.c.name, err)}
		}
		return tool.Chunk{}, &CallError{Tool: t.name, Err: err}
	}
	r := res.r
	if r == nil {
		return tool.Chunk{}, &CallError{Tool: t.name, Err: errors.New("the server returned no result")}
	}
	ch := tool.Chunk{Content: convertContent(r.Content, t.c.log)}
	if r.StructuredContent != nil {
		ch.Metadata = map[string]any{"structured_content": r.StructuredContent}
		if len(ch.Content) == 0 {
			if b, err := json.Marshal(r.StructuredContent); err == nil {
				ch.Content = []block.Block{block.NewText(string(b))}
			}
		}
	}
	if r.IsError {
		ch.State = block.ResultError
	}
	return ch, nil
}

// broken tells a lost connection from an error the server answered: a
// JSON-RPC error is the server's answer; anything else (a closed
// connection, a transport failure, a result that does not decode) leaves
// the session in doubt, and it is replaced on the next call.
func broken(err error) bool {
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		return true
	}
	// The SDK's own codes for a connection going away or a transport
	// refusing to send (internal/jsonrpc2: client and server closing,
	// rejected by transport).
	switch werr.Code {
	case -32003, -32004, -32005:
		return true
	}
	return false
}
