package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// textTurn streams n text chunks of one block.
func textTurn(n int) scripted.Turn {
	steps := make([]scripted.Step, n)
	for i := range steps {
		steps[i] = scripted.Text("tok" + strconv.Itoa(i%10) + " ")
	}
	return scripted.Stream(steps...)
}

// toolTurn10 streams one tool call whose arguments arrive in 10 fragments.
func toolTurn10() scripted.Turn {
	frags := []string{`{"in`, `put"`, `: "`, `he`, `llo`, ` wo`, `rld`, `, fr`, `om the `, `bench"}`}
	steps := make([]scripted.Step, len(frags))
	for i, f := range frags {
		name := ""
		if i == 0 {
			name = "echo"
		}
		steps[i] = scripted.ToolCall("call_1", name, f)
	}
	return scripted.Stream(steps...)
}

func benchEcho(b *testing.B) tool.Tool {
	return makeTool(b, toolSpec{name: "echo", body: func(_ context.Context, in map[string]any) iter.Seq2[tool.Chunk, error] {
		return func(yield func(tool.Chunk, error) bool) {
			s, _ := in["input"].(string)
			yield(tool.Text(s), nil)
		}
	}})
}

// runReplies replays the script once per iteration; every event is
// consumed. prior messages form the history before each reply.
func runReplies(b *testing.B, turns []scripted.Turn, tools []tool.Tool, prior []*message.Msg) {
	m := scripted.New("mock-model", turns) // no recording: it would serialize the history
	tk, err := tool.NewToolkit(tools)
	if err != nil {
		b.Fatal(err)
	}
	// The benchmark keeps the state it gives the agent, to reset the
	// history between replies.
	st := state.New(stamp.Default)
	a, err := agent.New(agent.Config{
		Name: "Friday", Model: m, SystemPrompt: "You are a helpful assistant.", Toolkit: tk, State: st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: quietLog,
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	in := []*message.Msg{user("go")}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Rewind()
		st.Context = append(st.Context[:0], prior...)
		n := 0
		for e, err := range a.Stream(ctx, in) {
			if err != nil {
				b.Fatal(err)
			}
			if e != nil {
				n++
			}
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// BenchmarkW0 is one reply with a single text chunk: the fixed cost of a
// reply.
func BenchmarkW0(b *testing.B) {
	runReplies(b, []scripted.Turn{textTurn(1)}, nil, nil)
}

// BenchmarkW1 is one reply streaming 1,000 text chunks; ns/chunk divides
// the whole reply (fixed cost included) by the chunks.
func BenchmarkW1(b *testing.B) {
	runReplies(b, []scripted.Turn{textTurn(1000)}, nil, nil)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/chunk")
}

// BenchmarkW2 is one tool call whose arguments arrive in 10 fragments, the
// tool runs, then 100 text chunks.
func BenchmarkW2(b *testing.B) {
	runReplies(b, []scripted.Turn{toolTurn10(), textTurn(100)}, []tool.Tool{benchEcho(b)}, nil)
}

// BenchmarkW3 is W2 with 200 prior messages in the context (and, to show
// the slope, 2,000).
func BenchmarkW3(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run("history="+strconv.Itoa(n), func(b *testing.B) {
			prior := make([]*message.Msg, 0, n)
			for i := range n / 2 {
				prior = append(prior, message.UserText("user", "question "+strconv.Itoa(i)))
				prior = append(prior, message.AssistantText("Friday", "answer "+strconv.Itoa(i)))
			}
			runReplies(b, []scripted.Turn{toolTurn10(), textTurn(100)}, []tool.Tool{benchEcho(b)}, prior)
		})
	}
}

// BenchmarkEstimate is the compression decision's token count before each
// reasoning step (Estimator.CountTokens over the system prompt, the
// history and the tools), for 200 and 2,000 prior messages.
func BenchmarkEstimate(b *testing.B) {
	tools := []model.ToolSchema{{Name: "echo", Description: "Test tool echo.", Parameters: json.RawMessage(inputSchema)}}
	for _, n := range []int{200, 2000} {
		b.Run("history="+strconv.Itoa(n), func(b *testing.B) {
			msgs := []*message.Msg{message.SystemText("system", "You are a helpful assistant.")}
			for i := range n / 2 {
				msgs = append(msgs, message.UserText("user", "question "+strconv.Itoa(i)))
				msgs = append(msgs, message.AssistantText("Friday", "answer "+strconv.Itoa(i)))
			}
			var e agent.Estimator
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.CountTokens(ctx, msgs, tools); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
		})
	}
}
