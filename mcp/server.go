package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
)

// ServerConfig describes an agent served as an MCP server (the other
// direction: MCP hosts calling the agent). NewAgent is required; every
// other zero value is a documented default.
type ServerConfig struct {
	// NewAgent builds the agent that answers one tool call: each call is
	// one reply of a fresh agent, so concurrent calls share nothing.
	NewAgent func() (*agent.Agent, error)
	// Name is the server's serverInfo.name ("": "agentscope").
	Name string
	// ToolName is the name of the one tool ("": "ask").
	ToolName string
	// Description is the tool's description ("": a sentence saying it
	// sends a message to the agent).
	Description string
	// Logger receives the server's warnings (nil: slog.Default()).
	Logger *slog.Logger
}

// askInput is the tool's argument object.
type askInput struct {
	Message string `json:"message" jsonschema:"the user message to send to the agent"`
}

// NewServer returns a go-sdk MCP server with one tool that sends its
// "message" argument to the agent as a user message and answers with the
// reply's text, and its data blocks as image or audio content. While the
// reply runs, its text streams as progress notifications to a client
// that asked for progress. A client's cancellation interrupts the reply
// (every tool call of it is answered). A reply that parks on a permission
// prompt or an external tool ends the call with a tool error naming the
// pending calls: run the agent in a permission mode that does not ask
// (bypass, dont_ask) to serve it unattended.
//
// Serve it with Run over stdio (&sdk.StdioTransport{}) or over HTTP with
// sdk.NewStreamableHTTPHandler.
func NewServer(cfg ServerConfig) (*sdk.Server, error) {
	if cfg.NewAgent == nil {
		return nil, fmt.Errorf("%w: ServerConfig.NewAgent is required", ErrConfig)
	}
	if cfg.Name == "" {
		cfg.Name = "agentscope"
	}
	if cfg.ToolName == "" {
		cfg.ToolName = "ask"
	}
	if cfg.Description == "" {
		cfg.Description = "Send a message to the agent and get its reply."
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: "dev"}, &sdk.ServerOptions{Logger: cfg.Logger})
	sdk.AddTool(srv, &sdk.Tool{Name: cfg.ToolName, Description: cfg.Description},
		func(ctx context.Context, req *sdk.CallToolRequest, in askInput) (*sdk.CallToolResult, any, error) {
			res, err := answer(ctx, cfg, req, in.Message)
			return res, nil, err
		})
	return srv, nil
}

func answer(ctx context.Context, cfg ServerConfig, req *sdk.CallToolRequest, text string) (*sdk.CallToolResult, error) {
	a, err := cfg.NewAgent()
	if err != nil {
		return nil, fmt.Errorf("building the agent: %w", err)
	}
	token := req.Params.GetProgressToken()
	var progress float64
	var res agent.Result
	var replyErr error
	for ev, err := range a.Stream(ctx, []*message.Msg{message.UserText("user", text)}, agent.WithResult(&res)) {
		if err != nil {
			replyErr = err
			break
		}
		if d, ok := ev.(*event.TextBlockDelta); ok && token != nil && d.Delta != "" {
			progress++
			// Best effort: a client that stopped reading progress still
			// gets the result.
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: progress, Message: d.Delta})
		}
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case replyErr != nil:
		return nil, replyErr
	}
	switch res.Outcome {
	case agent.OutcomeAwaitingConfirmation, agent.OutcomeAwaitingExternal:
		var names []string
		for _, p := range res.Pending {
			names = append(names, fmt.Sprintf("%s (%s)", p.Name, p.ID))
		}
		return errorResult(fmt.Sprintf("The agent's reply waits for %s: %s. This MCP server cannot ask; serve the agent in a permission mode that does not ask (bypass or dont_ask).",
			waitsFor(res.Outcome), strings.Join(names, ", "))), nil
	case agent.OutcomeInterrupted:
		return errorResult("The agent's reply was interrupted."), nil
	}
	out := &sdk.CallToolResult{}
	if res.Msg != nil {
		for _, b := range res.Msg.Content {
			switch b := b.(type) {
			case *block.Text:
				out.Content = append(out.Content, &sdk.TextContent{Text: b.Text})
			case *block.Data:
				if c := dataContent(b); c != nil {
					out.Content = append(out.Content, c)
				}
			}
		}
	}
	if res.Outcome == agent.OutcomeExceededMaxIters {
		out.IsError = true
	}
	if len(out.Content) == 0 {
		out.Content = []sdk.Content{&sdk.TextContent{Text: ""}}
	}
	return out, nil
}

func waitsFor(o agent.Outcome) string {
	if o == agent.OutcomeAwaitingExternal {
		return "the external execution of"
	}
	return "permission to run"
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// dataContent is a base64 image or audio block as MCP content (nil for
// other media and URL sources, which MCP content cannot carry inline).
func dataContent(d *block.Data) sdk.Content {
	src, ok := d.Source.(*block.Base64)
	if !ok {
		return nil
	}
	raw, err := src.Bytes()
	if err != nil {
		return nil
	}
	switch {
	case strings.HasPrefix(src.MediaType, "image/"):
		return &sdk.ImageContent{MIMEType: src.MediaType, Data: raw}
	case strings.HasPrefix(src.MediaType, "audio/"):
		return &sdk.AudioContent{MIMEType: src.MediaType, Data: raw}
	}
	return nil
}
