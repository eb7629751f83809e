package ollama_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/model/ollama"
)

func TestWithContextSize(t *testing.T) {
	def := ollama.New("m").ContextSize()
	if got := ollama.New("m", ollama.WithContextSize(5000)).ContextSize(); got != 5000 {
		t.Fatalf("WithContextSize(5000): %d", got)
	}
	if got := ollama.New("m", ollama.WithContextSize(-1)).ContextSize(); got != def {
		t.Fatalf("WithContextSize(-1): %d, want the default %d", got, def)
	}
}
