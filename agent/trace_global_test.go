package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
)

// Without Config.TracerProvider an agent follows the global provider:
// while nobody has set one, a reply has no tracer (so it starts no span);
// once one is set, even after the agent was built, its replies are traced
// there.
func TestGlobalTracerProvider(t *testing.T) {
	// Back to the process's first provider, so that the test can run
	// again (-count) and no later test is traced.
	t.Cleanup(func() {
		if quietGlobal != nil {
			otel.SetTracerProvider(quietGlobal)
		}
	})
	turns := []scripted.Turn{scripted.Stream(scripted.Text("one")), scripted.Stream(scripted.Text("two"))}
	a, err := New(Config{Name: "Friday", Model: scripted.New("m", turns),
		RuntimeState: RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != quietGlobal {
		t.Fatal("this test binary set a global tracer provider before the test")
	}
	if tr := a.replyTracer(); tr != nil {
		t.Fatalf("no global provider set, yet the reply has tracer %T", tr)
	}
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "hi")}); err != nil {
		t.Fatal(err)
	}

	sr := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)))
	if _, err := a.Reply(context.Background(), []*message.Msg{message.UserText("user", "again")}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sr.Ended() {
		names = append(names, s.Name())
	}
	if len(names) != 2 || names[0] != "chat m" || names[1] != "invoke_agent Friday" {
		t.Fatalf("spans after setting the global provider: %v", names)
	}
}

func TestErrorType(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&ModelCallError{Model: "m", Attempts: 2, Err: &model.Error{Type: event.ErrRateLimit}}, "rate_limit"},
		{fmt.Errorf("wrapped: %w", context.Canceled), "cancelled"},
		{&StreamError{Model: "m", Err: errors.New("cut")}, "stream_error"},
		{inputErr("Invalid input"), "invalid_input"},
		{fmt.Errorf("%w: boom", ErrPanicked), "panic"},
		{errors.New("something else"), "_OTHER"},
	}
	for _, c := range cases {
		if got := errorType(c.err); got != c.want {
			t.Errorf("errorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
