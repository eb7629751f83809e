package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/provider"
	"github.com/agentscope-go/agentscope/tool"
)

// readmeExample is the README's "An agent in Go", verbatim: it must
// compile against the API (it is not run: it needs a provider's key).
func readmeExample(ctx context.Context, send func([]byte)) error {
	type weatherIn struct {
		City string `json:"city" jsonschema:"description=The city"`
	}
	weather, _ := tool.Func("get_weather", "Get the weather of a city.",
		func(ctx context.Context, in weatherIn) (string, error) { return "Sunny in " + in.City, nil })
	tk, _ := tool.NewToolkit([]tool.Tool{weather})
	m, _ := provider.New("anthropic:claude-sonnet-4-5") // or openai:…, gemini:…, ollama:…, demo
	a, err := agent.New(agent.Config{Name: "Friday", Model: m, Toolkit: tk, SystemPrompt: "Be brief."})
	if err != nil {
		return err // agent.ErrConfig: no name, no model, …
	}

	var res agent.Result
	msgs := []*message.Msg{message.UserText("user", "Weather in Oslo?")}
	for e, err := range a.Stream(ctx, msgs, agent.WithResult(&res)) {
		if err != nil {
			return err // *agent.InputError, model errors, …
		}
		send(e.AppendJSON(nil)) // to the browser, SSE, a log…
	}
	switch res.Outcome {
	case agent.OutcomeAwaitingConfirmation: // parked: res.Pending lists the calls to confirm
		st, _ := a.State()
		saved, _ := json.Marshal(st) // persist; resume later, anywhere, with a.Confirm
		_ = saved
	case agent.OutcomeCompleted:
		text, _ := res.Msg.TextContent("\n")
		fmt.Println(text)
	}
	return nil
}

var _ = readmeExample

// The README's example is the code above, so it compiles.
func TestREADMEExampleCompiles(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(readme, []byte("## An agent in Go\n\n```go\n"))
	if !ok {
		t.Fatal("README has no Go example")
	}
	code, _, _ := bytes.Cut(after, []byte("```"))
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, fn, _ := strings.Cut(string(src), "func readmeExample(ctx context.Context, send func([]byte)) error {\n")
	fn, _, _ = strings.Cut(fn, "\treturn nil\n}\n")
	var want strings.Builder
	for line := range strings.Lines(string(code)) {
		if strings.TrimSpace(line) != "" {
			want.WriteString("\t")
		}
		want.WriteString(line)
	}
	if fn != want.String() {
		t.Fatalf("readmeExample differs from the README's example:\n%s\nREADME:\n%s", fn, want.String())
	}
}
