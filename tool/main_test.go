package tool_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind (abandoned tools included,
// once released).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
