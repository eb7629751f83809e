package event_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// The encoding/json baseline: each event as a plain struct of the same
// fields, decoded by reflection. Unions (a hint's or a tool result's
// string-or-blocks body) are `any`, which is what encoding/json can do
// without custom code.
type (
	stdBase struct {
		ID        string         `json:"id"`
		CreatedAt string         `json:"created_at"`
		Metadata  map[string]any `json:"metadata"`
		Type      string         `json:"type"`
	}
	stdBlock struct {
		stdBase
		ReplyID string `json:"reply_id"`
		BlockID string `json:"block_id"`
	}
	stdDelta struct {
		stdBlock
		Delta string `json:"delta"`
	}
	stdCall struct {
		stdBase
		ReplyID    string `json:"reply_id"`
		ToolCallID string `json:"tool_call_id"`
	}
	stdRule struct {
		ToolName    string  `json:"tool_name"`
		RuleContent *string `json:"rule_content"`
		Behavior    string  `json:"behavior"`
		Source      string  `json:"source"`
	}
	stdToolCall struct {
		Type           string    `json:"type"`
		ID             string    `json:"id"`
		Name           string    `json:"name"`
		Input          string    `json:"input"`
		State          string    `json:"state"`
		SuggestedRules []stdRule `json:"suggested_rules"`
		CreatedAt      string    `json:"created_at"`
		FinishedAt     *string   `json:"finished_at"`
	}
	stdToolResult struct {
		Type       string         `json:"type"`
		ID         string         `json:"id"`
		Name       string         `json:"name"`
		Output     any            `json:"output"`
		State      string         `json:"state"`
		Metadata   map[string]any `json:"metadata"`
		CreatedAt  string         `json:"created_at"`
		FinishedAt *string        `json:"finished_at"`
	}
)

// stdlibTarget returns a fresh plain struct for an event type.
func stdlibTarget(t event.Type) any {
	switch t {
	case event.TypeReplyStart:
		return new(struct {
			stdBase
			SessionID string `json:"session_id"`
			ReplyID   string `json:"reply_id"`
			Name      string `json:"name"`
			Role      string `json:"role"`
		})
	case event.TypeReplyEnd:
		return new(struct {
			stdBase
			SessionID      string `json:"session_id"`
			ReplyID        string `json:"reply_id"`
			FinishedReason string `json:"finished_reason"`
			Error          *struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		})
	case event.TypeModelCallStart:
		return new(struct {
			stdBase
			ReplyID   string `json:"reply_id"`
			ModelName string `json:"model_name"`
		})
	case event.TypeModelCallEnd:
		return new(struct {
			stdBase
			ReplyID                  string `json:"reply_id"`
			InputTokens              int64  `json:"input_tokens"`
			OutputTokens             int64  `json:"output_tokens"`
			CacheInputTokens         int64  `json:"cache_input_tokens"`
			CacheCreationInputTokens int64  `json:"cache_creation_input_tokens"`
			FinishedReason           string `json:"finished_reason"`
		})
	case event.TypeTextBlockStart, event.TypeTextBlockEnd, event.TypeDataBlockEnd,
		event.TypeThinkingBlockStart, event.TypeThinkingBlockEnd:
		return new(stdBlock)
	case event.TypeTextBlockDelta, event.TypeThinkingBlockDelta:
		return new(stdDelta)
	case event.TypeDataBlockStart:
		return new(struct {
			stdBlock
			MediaType string `json:"media_type"`
		})
	case event.TypeDataBlockDelta:
		return new(struct {
			stdBlock
			Data      string `json:"data"`
			MediaType string `json:"media_type"`
		})
	case event.TypeHintBlock:
		return new(struct {
			stdBlock
			Source *string `json:"source"`
			Hint   any     `json:"hint"`
		})
	case event.TypeToolCallStart, event.TypeToolResultStart:
		return new(struct {
			stdCall
			ToolCallName string `json:"tool_call_name"`
		})
	case event.TypeToolCallDelta, event.TypeToolResultTextDelta:
		return new(struct {
			stdCall
			Delta string `json:"delta"`
		})
	case event.TypeToolCallEnd:
		return new(stdCall)
	case event.TypeToolResultDataDelta:
		return new(struct {
			stdCall
			BlockID   string  `json:"block_id"`
			MediaType string  `json:"media_type"`
			Data      *string `json:"data"`
			URL       *string `json:"url"`
		})
	case event.TypeToolResultEnd:
		return new(struct {
			stdCall
			State string `json:"state"`
		})
	case event.TypeExceedMaxIters:
		return new(struct {
			stdBase
			ReplyID string `json:"reply_id"`
			Name    string `json:"name"`
		})
	case event.TypeRequireUserConfirm, event.TypeRequireExternalExecution:
		return new(struct {
			stdBase
			ReplyID   string        `json:"reply_id"`
			ToolCalls []stdToolCall `json:"tool_calls"`
		})
	case event.TypeUserConfirmResult:
		return new(struct {
			stdBase
			ReplyID        string `json:"reply_id"`
			ConfirmResults []struct {
				Confirmed bool        `json:"confirmed"`
				ToolCall  stdToolCall `json:"tool_call"`
				Rules     []stdRule   `json:"rules"`
			} `json:"confirm_results"`
		})
	case event.TypeUserInterrupt:
		return new(struct {
			stdBase
			ReplyID string `json:"reply_id"`
		})
	case event.TypeExternalExecutionResult:
		return new(struct {
			stdBase
			ReplyID          string          `json:"reply_id"`
			ExecutionResults []stdToolResult `json:"execution_results"`
		})
	case event.TypeCustom:
		return new(struct {
			stdBase
			Name  string         `json:"name"`
			Value map[string]any `json:"value"`
		})
	}
	panic("no stdlib target for " + string(t))
}

// benchLines names each §1.6.3 example by its type (a second example of a
// type gets a suffix).
func benchLines(b *testing.B) (names []string, lines [][]byte) {
	seen := map[string]int{}
	for _, l := range specEventLines(b) {
		t, err := wire.PeekType([]byte(l))
		if err != nil {
			b.Fatal(err)
		}
		name := t
		if seen[t]++; seen[t] > 1 {
			name = fmt.Sprintf("%s_%d", t, seen[t])
		}
		names = append(names, name)
		lines = append(lines, []byte(l))
	}
	return names, lines
}

// BenchmarkDecode decodes each §1.6.3 example with event.Decode.
func BenchmarkDecode(b *testing.B) {
	names, lines := benchLines(b)
	for i, line := range lines {
		b.Run(names[i], func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := event.Decode(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStdlibDecode is the baseline: json.Unmarshal of the same example
// into a plain struct of the same fields (no validation, no defaults).
func BenchmarkStdlibDecode(b *testing.B) {
	names, lines := benchLines(b)
	for i, line := range lines {
		t, _ := wire.PeekType(line)
		b.Run(names[i], func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if err := json.Unmarshal(line, stdlibTarget(event.Type(t))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
