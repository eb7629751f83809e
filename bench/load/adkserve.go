package main

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/server/adkrest"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"
)

// adkEnv, when set to an address, makes this program adk-go's server
// instead of the load client (servers.go starts it so).
const adkEnv = "LOAD_SERVE_ADK"

// adkApp and adkUser are the app and user every adk-go request names.
const (
	adkApp  = "assistant"
	adkUser = "me"
)

// serveADK serves adk-go v2.2.0's REST API (server/adkrest: /run_sse and
// the sessions routes) on addr, over session.InMemoryService, with the
// scripted demoModel below and a save_note tool that asks for a
// confirmation first. It prints "listening on http://ADDR" once it
// accepts connections, and serves until the process is killed.
func serveADK(addr string) error {
	save, err := functiontool.New(functiontool.Config{
		Name: "save_note", Description: "Saves a note for the user.", RequireConfirmation: true,
	}, func(_ agent.Context, in noteIn) (noteOut, error) {
		return noteOut{Result: fmt.Sprintf("saved the note %q", in.Text)}, nil
	})
	if err != nil {
		return err
	}
	a, err := llmagent.New(llmagent.Config{
		Name: "assistant", Description: "The load client's agent.", Model: &demoModel{},
		Instruction: "You are a helpful assistant.", Tools: []tool.Tool{save},
	})
	if err != nil {
		return err
	}
	h, err := adkrest.NewServer(adkrest.ServerConfig{
		SessionService:  session.InMemoryService(),
		AgentLoader:     agent.NewSingleLoader(a),
		SSEWriteTimeout: time.Hour,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "adk-go: listening on http://%s\n", ln.Addr())
	return http.Serve(ln, h)
}

type noteIn struct {
	Text string `json:"text"`
}

type noteOut struct {
	Result string `json:"result"`
}

// demoModel answers as the keyless demo model of agentscope serve does,
// for the requests the load client makes: a user text is echoed back in
// word-sized chunks ("You said: …"); "save a note: X" thinks aloud in
// words, then calls save_note; the tool's result is answered in words.
// Each chunk is a partial response, as adk-go's streaming models give,
// then the aggregate. So both servers stream the same number of chunks for
// the same prompt.
type demoModel struct{ ids atomic.Int64 }

func (m *demoModel) Name() string { return "demo" }

var noteWords = regexp.MustCompile(`(?i)\bsave a note:?\s*`)

func (m *demoModel) GenerateContent(_ context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		var last *genai.Content
		if n := len(req.Contents); n > 0 {
			last = req.Contents[n-1]
		}
		var prompt string
		if last != nil {
			for _, p := range last.Parts {
				if p.FunctionResponse != nil {
					text := fmt.Sprintf("The %s tool says: %v. That is all I can tell from it.", p.FunctionResponse.Name, p.FunctionResponse.Response["result"])
					m.text(yield, stream, text, false, nil)
					return
				}
				prompt += p.Text
			}
		}
		if loc := noteWords.FindStringIndex(prompt); loc != nil {
			note := strings.TrimSpace(prompt[loc[1]:])
			call := &genai.Part{FunctionCall: &genai.FunctionCall{
				ID: fmt.Sprintf("call_%d", m.ids.Add(1)), Name: "save_note", Args: map[string]any{"text": note},
			}}
			m.text(yield, stream, "The user wants a note saved. Saving changes something, so the runtime will ask them before the tool runs.", true, call)
			return
		}
		m.text(yield, stream, fmt.Sprintf("Hello! I am the load client's scripted model. You said: %q. I can use the save_note tool.", prompt), false, nil)
	}
}

// text streams text in words (as thoughts when thought is set), then
// yields the aggregate, with call after the text when there is one.
func (m *demoModel) text(yield func(*model.LLMResponse, error) bool, stream bool, text string, thought bool, call *genai.Part) {
	if stream {
		for _, w := range words(text) {
			c := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: w, Thought: thought}}}
			if !yield(&model.LLMResponse{Content: c, Partial: true}, nil) {
				return
			}
		}
	}
	parts := []*genai.Part{{Text: text, Thought: thought}}
	if call != nil {
		parts = append(parts, call)
	}
	yield(&model.LLMResponse{
		Content:      &genai.Content{Role: genai.RoleModel, Parts: parts},
		TurnComplete: true, FinishReason: genai.FinishReasonStop,
	}, nil)
}

// words cuts text before each space, as the demo model does.
func words(text string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(text); i++ {
		if i == len(text) || text[i] == ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	return out
}
