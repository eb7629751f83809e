package agent_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// Tracing a reply: any OpenTelemetry TracerProvider (here the SDK's, with
// an in-memory recorder; in production one with an OTLP exporter, or none
// to use the global provider).
func ExampleConfig_tracerProvider() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	a, err := agent.New(agent.Config{
		Name:           "Friday",
		Model:          scripted.New("demo-model", []scripted.Turn{scripted.Stream(scripted.Text("Hello!").WithUsage(9, 2))}),
		RuntimeState:   agent.RuntimeStateConfig{Disabled: true},
		TracerProvider: tp,
	})
	if err != nil {
		panic(err)
	}
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "Hi")}); err != nil {
		panic(err)
	}
	for _, s := range rec.Ended() {
		fmt.Print(s.Name())
		for _, kv := range s.Attributes() {
			switch kv.Key {
			case "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "agentscope.reply.outcome":
				fmt.Printf(" %s=%s", kv.Key, kv.Value.Emit())
			}
		}
		fmt.Println()
	}
	// Output:
	// chat demo-model gen_ai.usage.input_tokens=9 gen_ai.usage.output_tokens=2
	// invoke_agent Friday agentscope.reply.outcome=completed
}
