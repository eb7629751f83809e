package memory_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func BenchmarkStore(b *testing.B) {
	sessiontest.Bench(b, func(b *testing.B) session.Store { return memory.New(memory.Config{}) })
}
