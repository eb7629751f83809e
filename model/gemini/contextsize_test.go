package gemini_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/model/gemini"
)

func TestWithContextSize(t *testing.T) {
	def := gemini.New("m").ContextSize()
	if got := gemini.New("m", gemini.WithContextSize(5000)).ContextSize(); got != 5000 {
		t.Fatalf("WithContextSize(5000): %d", got)
	}
	if got := gemini.New("m", gemini.WithContextSize(-1)).ContextSize(); got != def {
		t.Fatalf("WithContextSize(-1): %d, want the default %d", got, def)
	}
}
