package provider_test

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/provider"
)

func ExampleNew() {
	// Keys come from the environment (OPENAI_API_KEY here); WithEnv and
	// WithAPIKey replace that lookup.
	m, err := provider.New("openai:gpt-4.1", provider.WithEnv(func(name string) string {
		return map[string]string{"OPENAI_API_KEY": "sk-example"}[name]
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name())

	_, err = provider.New("anthropic:claude-sonnet-4-5", provider.WithEnv(func(string) string { return "" }))
	fmt.Println(err)
	// Output:
	// gpt-4.1
	// setup: no API key for "anthropic": set ANTHROPIC_API_KEY
}

func ExampleParse() {
	s, _ := provider.Parse("openai-compatible:qwen3:8b@http://localhost:8000/v1")
	fmt.Println(s.Scheme, s.Model, s.BaseURL)
	// Output: openai-compatible qwen3:8b http://localhost:8000/v1
}

func ExampleWithTimeouts() {
	// A local server that loads its weights on the first call may take
	// longer than the default two minutes to answer; connecting keeps
	// its 10s default, and a negative value would mean no limit.
	m, err := provider.New("ollama:qwen3",
		provider.WithTimeouts(model.Timeouts{FirstByte: 5 * time.Minute, Idle: 5 * time.Minute}),
		provider.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name())
	// Output: qwen3
}
