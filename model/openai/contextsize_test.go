package openai_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/model/openai"
)

func TestWithContextSize(t *testing.T) {
	if got := openai.New("m", openai.WithContextSize(5000)).ContextSize(); got != 5000 {
		t.Fatalf("Chat WithContextSize(5000): %d", got)
	}
	if got := openai.NewResponses("m", openai.WithContextSize(7000)).ContextSize(); got != 7000 {
		t.Fatalf("Responses WithContextSize(7000): %d", got)
	}
	if got := openai.New("m", openai.WithProfile(openai.ProfileDeepSeek), openai.WithContextSize(0)).ContextSize(); got != 65536 {
		t.Fatalf("DeepSeek profile default: %d", got)
	}
}
