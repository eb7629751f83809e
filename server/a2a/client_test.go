package a2a_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/a2a"
	"github.com/agentscope-go/agentscope/tool"
)

func (e *env) dial(t *testing.T, path string) *a2a.Client {
	t.Helper()
	h := http.Header{"X-User-Id": {user}}
	if e.token != "" {
		h.Set("Authorization", "Bearer "+e.token)
	}
	c, err := a2a.Dial(t.Context(), a2a.ClientConfig{URL: e.hs.URL + path, Header: h})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The client's typed calls against this package's server, behind a
// token: a send, a stream, GetTask, a typed error.
func TestClientCalls(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.Text("First.")),
		scripted.Stream(scripted.Text("Second "), scripted.Text("answer.")),
	}, "tok")
	c := e.dial(t, "/a2a/a1/")
	if c.Card().Name != "assistant" || !c.Streaming() {
		t.Fatalf("card %+v", c.Card())
	}
	res, err := c.SendMessage(t.Context(), a2a.SendMessageRequest{Message: userMessage("m1", text("hi"))})
	if err != nil || res.Task == nil || res.Task.Text("") != "First." {
		t.Fatalf("SendMessage %+v %v", res, err)
	}
	// The same context, streamed.
	m := userMessage("m2", text("again"))
	m.ContextID = res.Task.ContextID
	var streamed strings.Builder
	var last a2a.TaskState
	var id string
	for ev, err := range c.SendStreamingMessage(t.Context(), a2a.SendMessageRequest{Message: m}) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Task != nil:
			id = ev.Task.ID
		case ev.ArtifactUpdate != nil:
			streamed.WriteString(a2aText(ev.ArtifactUpdate.Artifact.Parts))
		case ev.StatusUpdate != nil:
			last = ev.StatusUpdate.Status.State
		}
	}
	if streamed.String() != "Second answer." || last != a2a.TaskStateCompleted || id == res.Task.ID {
		t.Fatalf("streamed %q, last %s, task %s", streamed.String(), last, id)
	}
	got, err := c.GetTask(t.Context(), a2a.GetTaskRequest{ID: id})
	if err != nil || got.ContextID != res.Task.ContextID || got.Text("") != "Second answer." {
		t.Fatalf("GetTask %+v %v", got, err)
	}
	_, err = c.GetTask(t.Context(), a2a.GetTaskRequest{ID: "nope"})
	if !errors.Is(err, &a2a.Error{Code: a2a.CodeTaskNotFound}) {
		t.Fatalf("GetTask of nothing: %v", err)
	}
	// Without the token the card is refused.
	if _, err := a2a.Dial(t.Context(), a2a.ClientConfig{URL: e.hs.URL}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Dial without the token: %v", err)
	}
}

// result runs the tool through tool.Run and folds its chunks.
func result(t *testing.T, ctx context.Context, tl tool.Tool, input map[string]any) (*block.ToolResult, int) {
	t.Helper()
	r := tool.NewResponse("call", nil)
	n := 0
	for ch := range tool.Run(ctx, tl, input) {
		n++
		if err := r.Append(ch); err != nil {
			t.Fatal(err)
		}
	}
	return r.Result(tl.Name()), n
}

func resultText(r *block.ToolResult) string {
	var b strings.Builder
	for _, bl := range r.Output.Blocks {
		if tx, ok := bl.(*block.Text); ok {
			b.WriteString(tx.Text)
		}
	}
	return b.String()
}

// The remote agent as a tool: its answer streams in as deltas; a task
// that needs input says what it asks and how to answer; the answer with
// the task_id finishes it.
func TestToolAsksAndIsAnswered(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.Text("Let me "), scripted.Text("save it."), scripted.ToolCall("c1", "save_note", `{"text":"buy milk"}`)),
		scripted.Stream(scripted.Text("Saved.")),
	}, "")
	tl, err := e.dial(t, "").Tool("helper")
	if err != nil {
		t.Fatal(err)
	}
	if tl.Name() != "a2a__helper" || !strings.Contains(tl.Description(), `"assistant"`) {
		t.Fatalf("tool %s: %s", tl.Name(), tl.Description())
	}
	res, chunks := result(t, t.Context(), tl, map[string]any{"message": "save a note: buy milk"})
	txt := resultText(res)
	if res.State != block.ResultSuccess || chunks < 3 || !strings.HasPrefix(txt, "Let me save it.") || !strings.Contains(txt, "needs input") || !strings.Contains(txt, "save_note") {
		t.Fatalf("%d chunks, %s: %q", chunks, res.State, txt)
	}
	meta, _ := res.Metadata["a2a"].(map[string]any)
	taskID, _ := meta["task_id"].(string)
	if meta["state"] != string(a2a.TaskStateInputRequired) || !strings.Contains(txt, taskID) {
		t.Fatalf("metadata %v", res.Metadata)
	}
	res, _ = result(t, t.Context(), tl, map[string]any{"message": "yes", "task_id": taskID})
	if res.State != block.ResultSuccess || resultText(res) != "Saved." || e.notes.Load() != 1 {
		t.Fatalf("answered: %s %q, notes %d", res.State, resultText(res), e.notes.Load())
	}
	// A denial ends the next task too; an unknown task is an error result.
	res, _ = result(t, t.Context(), tl, map[string]any{"message": "yes", "task_id": "nope"})
	if res.State != block.ResultError || !strings.Contains(resultText(res), "Task not found") {
		t.Fatalf("unknown task: %s %q", res.State, resultText(res))
	}
}

// An interrupted call cancels its remote task.
func TestToolInterruptedCancelsRemoteTask(t *testing.T) {
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.Text("Waiting."), scripted.ToolCall("w1", "wait", `{}`))}, "")
	tl, err := e.dial(t, "").Tool("waiter")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last tool.Chunk
	for ch := range tool.Run(ctx, tl, map[string]any{"message": "wait"}) {
		// The first delta: the call has its remote task; once the remote
		// tool runs, the local reply is interrupted.
		if ctx.Err() == nil {
			<-e.waiting
			cancel()
		}
		last = ch
	}
	if last.State != block.ResultInterrupted {
		t.Fatalf("interrupted call ended %+v", last)
	}
	// The remote reply ends interrupted: its session is idle again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		recs := e.snap()
		idle := len(recs) == 1
		for sid := range recs {
			if st, _ := e.srv.Engine().Status(t.Context(), sessionKey(sid)); st != "idle" {
				idle = false
			}
		}
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the remote task was not cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A reply that fails is a failed task saying why; as a tool, an error
// result.
func TestFailedTask(t *testing.T) {
	e := newEnv(t, []scripted.Turn{scripted.Failing(errors.New("the model broke")), scripted.Failing(errors.New("the model broke"))}, "")
	task := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("hi"))}).task(t)
	if task.Status.State != a2a.TaskStateFailed || task.Status.Message == nil || !strings.Contains(task.Status.Message.Text(""), "the model broke") {
		t.Fatalf("task %s", dump(task))
	}
	tl, err := e.dial(t, "").Tool("x")
	if err != nil {
		t.Fatal(err)
	}
	res, _ := result(t, t.Context(), tl, map[string]any{"message": "hi"})
	if res.State != block.ResultError || !strings.Contains(resultText(res), "TASK_STATE_FAILED") || !strings.Contains(resultText(res), "the model broke") {
		t.Fatalf("tool: %s %q", res.State, resultText(res))
	}
}
