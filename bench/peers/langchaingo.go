package peers

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unsafe"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"
	"github.com/tmc/langchaingo/tools"
)

// lcModel is the script as a langchaingo llms.Model. langchaingo streams
// through an untyped []byte callback (llms.WithStreamingFunc) and returns
// the whole response at the end; its OpenAI client passes tool-call
// fragments to that callback as JSON a consumer cannot tell from text
// without parsing, so this model, like that client's response, gathers
// the 10 fragments itself and streams only the text. The chunks' bytes are
// made once, with the script.
type lcModel struct {
	s     script
	bytes [][]byte
	p     *probe
}

var _ llms.Model = (*lcModel)(nil)

func (m *lcModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	if m.p != nil {
		texts := make([]string, len(msgs))
		for i, mc := range msgs {
			var b strings.Builder
			for _, part := range mc.Parts {
				if t, ok := part.(llms.TextContent); ok {
					b.WriteString(t.Text)
				}
			}
			texts[i] = b.String()
		}
		m.p.request(texts)
	}
	answer := !m.s.tool || (len(msgs) > 0 && msgs[len(msgs)-1].Role == llms.ChatMessageTypeTool)
	if !answer {
		var args strings.Builder
		for _, f := range toolFragments {
			args.WriteString(f)
		}
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
			StopReason: "tool_calls",
			ToolCalls: []llms.ToolCall{{ID: callID, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: toolName, Arguments: args.String()}}},
		}}}, nil
	}
	var text strings.Builder
	for i, c := range m.s.text {
		if opts.StreamingFunc != nil {
			if err := opts.StreamingFunc(ctx, m.bytes[i]); err != nil {
				return nil, err
			}
		}
		text.WriteString(c)
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{StopReason: "stop", Content: text.String()}}}, nil
}

func (m *lcModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// lcEcho is the echo tool: langchaingo hands a tool the call's raw
// arguments, which it parses itself.
type lcEcho struct{ p *probe }

func (lcEcho) Name() string        { return toolName }
func (lcEcho) Description() string { return toolDesc }
func (e lcEcho) Call(_ context.Context, input string) (string, error) {
	var in struct {
		Input string `json:"input"`
	}
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		return "", err
	}
	e.p.tool(in.Input)
	return in.Input, nil
}

// langchaingo is its OpenAI-functions agent (the tool-calling one) run by
// an agents.Executor through chains.Call, streaming through the call's
// chains.WithStreamingFunc. (A callbacks handler given to the agent would
// not stream in v0.1.14: the agent appends the chain options' streaming
// function after its own, nil when the call has none.) The executor takes only string inputs, so prior
// messages reach the model as langchaingo's ConversationBuffer memory
// renders them, one "Human: …\nAI: …" transcript in a message of the
// prompt; without prior messages the executor has no memory.
type langchaingo struct {
	e       *agents.Executor
	stream  chains.ChainCallOption
	onText  func(string)
	history *memory.ChatMessageHistory
	prior   []llms.ChatMessage
	last    string
}

func newLangchaingo(s script, p *probe) (replier, error) {
	m := &lcModel{s: s, p: p}
	for _, c := range s.text {
		m.bytes = append(m.bytes, []byte(c))
	}
	l := &langchaingo{}
	l.stream = chains.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		// No copy: onText keeps nothing past the call, as a consumer
		// writing the bytes out would not.
		l.onText(unsafe.String(unsafe.SliceData(chunk), len(chunk)))
		return nil
	})
	opts := []agents.Option{agents.NewOpenAIOption().WithSystemMessage(systemPrompt)}
	var execOpts []agents.Option
	if s.prior > 0 {
		for i := range s.prior {
			if i%2 == 0 {
				l.prior = append(l.prior, llms.HumanChatMessage{Content: priorText(i)})
			} else {
				l.prior = append(l.prior, llms.AIChatMessage{Content: priorText(i)})
			}
		}
		l.prior = slices.Clip(l.prior) // the memory appends to it
		l.history = memory.NewChatMessageHistory()
		opts = append(opts, agents.NewOpenAIOption().WithExtraMessages([]prompts.MessageFormatter{
			prompts.NewHumanMessagePromptTemplate("{{.history}}", []string{"history"}),
		}))
		execOpts = append(execOpts, agents.WithMemory(memory.NewConversationBuffer(memory.WithChatHistory(l.history))))
	}
	l.e = agents.NewExecutor(agents.NewOpenAIFunctionsAgent(m, []tools.Tool{lcEcho{p}}, opts...), execOpts...)
	return l, nil
}

func (l *langchaingo) reply(ctx context.Context, onText func(string)) error {
	if l.history != nil {
		if err := l.history.SetMessages(ctx, l.prior); err != nil {
			return err
		}
	}
	l.onText = onText
	out, err := chains.Call(ctx, l.e, map[string]any{"input": userInput}, l.stream)
	if err != nil {
		return err
	}
	l.last, _ = out["output"].(string)
	return nil
}

func (l *langchaingo) final() string { return l.last }
