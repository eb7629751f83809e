package memory_test

import (
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/session/sessiontest"
)

func TestContract(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		s := memory.New(memory.Config{Now: now})
		t.Cleanup(func() { s.Close() })
		return s
	})
}
