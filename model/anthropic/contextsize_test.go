package anthropic_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/model/anthropic"
)

func TestWithContextSize(t *testing.T) {
	def := anthropic.New("m").ContextSize()
	if got := anthropic.New("m", anthropic.WithContextSize(5000)).ContextSize(); got != 5000 {
		t.Fatalf("WithContextSize(5000): %d", got)
	}
	if got := anthropic.New("m", anthropic.WithContextSize(-1)).ContextSize(); got != def {
		t.Fatalf("WithContextSize(-1): %d, want the default %d", got, def)
	}
}
