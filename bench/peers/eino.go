package peers

import (
	"context"
	"errors"
	"io"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

// einoModel is the script as an eino ToolCallingChatModel. A call whose
// last input message is a tool result streams the answer, any other call
// the tool call (when the script has one). Each call hands out fresh
// chunk messages, which the framework may keep, carved from one slab per
// call; a network provider would also run a goroutine behind a
// schema.Pipe, which this model spares the peer.
type einoModel struct {
	s script
	p *probe
}

var _ model.ToolCallingChatModel = (*einoModel)(nil)

func (m *einoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func (m *einoModel) chunks(input []*schema.Message) []*schema.Message {
	if m.p != nil {
		texts := make([]string, len(input))
		for i, msg := range input {
			texts[i] = msg.Content
		}
		m.p.request(texts)
	}
	answer := !m.s.tool || (len(input) > 0 && input[len(input)-1].Role == schema.Tool)
	if answer {
		slab := make([]schema.Message, len(m.s.text))
		out := make([]*schema.Message, len(m.s.text))
		for i, c := range m.s.text {
			slab[i] = schema.Message{Role: schema.Assistant, Content: c}
			out[i] = &slab[i]
		}
		return out
	}
	// OpenAI's way: the id, type and name come with the first fragment,
	// the index with every one.
	index := 0
	slab := make([]schema.Message, len(toolFragments))
	calls := make([]schema.ToolCall, len(toolFragments))
	out := make([]*schema.Message, len(toolFragments))
	for i, f := range toolFragments {
		calls[i] = schema.ToolCall{Index: &index, Function: schema.FunctionCall{Arguments: f}}
		if i == 0 {
			calls[i].ID, calls[i].Type, calls[i].Function.Name = callID, "function", toolName
		}
		slab[i] = schema.Message{Role: schema.Assistant, ToolCalls: calls[i : i+1 : i+1]}
		out[i] = &slab[i]
	}
	return out
}

func (m *einoModel) Stream(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray(m.chunks(input)), nil
}

func (m *einoModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return schema.ConcatMessages(m.chunks(input))
}

type einoEchoIn struct {
	Input string `json:"input" jsonschema:"description=the text to echo"`
}

// einoEcho is the echo tool as eino users write one: a typed function
// whose schema utils.InferTool derives.
func einoEcho(p *probe) (tool.InvokableTool, error) {
	return utils.InferTool(toolName, toolDesc, func(_ context.Context, in einoEchoIn) (string, error) {
		p.tool(in.Input)
		return in.Input, nil
	})
}

// einoHistory is the system prompt, the prior messages and the user's
// input.
func einoHistory(s script, system bool) []*schema.Message {
	var msgs []*schema.Message
	if system {
		msgs = append(msgs, schema.SystemMessage(systemPrompt))
	}
	for i := range s.prior {
		if i%2 == 0 {
			msgs = append(msgs, schema.UserMessage(priorText(i)))
		} else {
			msgs = append(msgs, schema.AssistantMessage(priorText(i), nil))
		}
	}
	msgs = append(msgs, schema.UserMessage(userInput))
	return msgs[:len(msgs):len(msgs)]
}

// einoReact is eino's flow ReAct agent (flow/agent/react) called through
// Agent.Stream, which streams the answering model call (the tool call
// turn is consumed inside the graph). The system prompt leads the input,
// as its documentation recommends.
type einoReact struct {
	a     *react.Agent
	input []*schema.Message
}

func newEinoReact(s script, p *probe) (replier, error) {
	echo, err := einoEcho(p)
	if err != nil {
		return nil, err
	}
	a, err := react.NewAgent(context.Background(), &react.AgentConfig{
		ToolCallingModel: &einoModel{s: s, p: p},
		ToolsConfig:      compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo}},
	})
	if err != nil {
		return nil, err
	}
	return &einoReact{a: a, input: einoHistory(s, true)}, nil
}

func (e *einoReact) reply(ctx context.Context, onText func(string)) error {
	sr, err := e.a.Stream(ctx, e.input)
	if err != nil {
		return err
	}
	defer sr.Close()
	return drainEino(sr, onText)
}

func (e *einoReact) final() string { return "" }

// drainEino hands the text of every chunk of sr to onText.
func drainEino(sr *schema.StreamReader[*schema.Message], onText func(string)) error {
	for {
		msg, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if msg.Content != "" {
			onText(msg.Content)
		}
	}
}

// einoADK is eino's ADK ChatModelAgent run by an adk.Runner with
// streaming on: every model call and tool result is an event, each model
// call's a stream of chunks.
type einoADK struct {
	r     *adk.Runner
	input []*schema.Message
}

func newEinoADK(s script, p *probe) (replier, error) {
	echo, err := einoEcho(p)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        agentName,
		Description: "The benchmark's agent.",
		Instruction: systemPrompt,
		Model:       &einoModel{s: s, p: p},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{echo}}},
	})
	if err != nil {
		return nil, err
	}
	r := adk.NewRunner(ctx, adk.RunnerConfig{Agent: a, EnableStreaming: true})
	return &einoADK{r: r, input: einoHistory(s, false)}, nil
}

func (e *einoADK) reply(ctx context.Context, onText func(string)) error {
	it := e.r.Run(ctx, e.input)
	var failed error
	for {
		ev, ok := it.Next()
		if !ok {
			return failed
		}
		if ev.Err != nil {
			failed = ev.Err
			continue
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		mv := ev.Output.MessageOutput
		switch {
		case mv.IsStreaming:
			// Every stream is drained, the tool's too: the runner
			// waits for its consumers.
			sr := mv.MessageStream
			if mv.Role != schema.Assistant {
				for {
					if _, err := sr.Recv(); err != nil {
						break
					}
				}
				sr.Close()
				continue
			}
			err := drainEino(sr, onText)
			sr.Close()
			if err != nil && failed == nil {
				failed = err
			}
		case mv.Role == schema.Assistant && mv.Message != nil && mv.Message.Content != "":
			onText(mv.Message.Content)
		}
	}
}

func (e *einoADK) final() string { return "" }
