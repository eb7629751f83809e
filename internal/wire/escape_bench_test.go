package wire_test

import (
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/internal/wire"
)

// A token-sized delta and a paragraph with quotes, newlines and non-ASCII:
// the strings an event per streamed token writes.
var benchStrings = map[string]string{
	"token":     " the",
	"paragraph": strings.Repeat("Hello, \"world\"!\nCafé — naïve 中文 text.\t", 20),
}

func BenchmarkAppendString(b *testing.B) {
	for name, s := range benchStrings {
		b.Run(name, func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				buf = wire.AppendString(buf[:0], s)
			}
		})
	}
}
