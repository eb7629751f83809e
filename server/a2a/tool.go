package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/tool"
)

// ToolName is the name of the tool a remote agent called name becomes:
// "a2a__" and name, with the characters a model API refuses in a tool
// name (outside [a-zA-Z0-9_-]) as "x", as the mcp package names its
// tools.
func ToolName(name string) string {
	b := []byte("a2a__" + name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = 'x'
		}
	}
	return string(b)
}

var toolSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"message":{"type":"string","description":"What to tell or ask the remote agent."},` +
	`"context_id":{"type":"string","description":"Continue the conversation of an earlier call: its context_id."},` +
	`"task_id":{"type":"string","description":"Answer the remote agent's question on a task that needs input: its task_id."}},` +
	`"required":["message"]}`)

// Tool is the remote agent as a tool of a local agent, named
// ToolName(name): it sends the model's message and answers with the
// remote task's final text, streamed as the remote agent writes it when
// its card says it streams. A task that needs input ends the call with a
// result saying what the remote agent asks and the task_id to answer it
// with (a call with that task_id and the answer as message resumes it);
// a failed or canceled task is an error result; an interrupted call
// cancels the remote task. Like any tool without a policy of its own, it
// asks the user before each call: it sends the conversation's data to
// another service.
func (c *Client) Tool(name string) (tool.Tool, error) {
	desc := fmt.Sprintf("Send a message to the remote agent %q over A2A and get its answer.", c.card.Name)
	if d := strings.TrimSpace(c.card.Description); d != "" {
		desc += " It says of itself: " + d
	}
	desc += " When it needs more input it says so and gives a task_id: call again with that task_id and your answer."
	return tool.New(ToolName(name), desc, toolSchema, c.callTool, tool.ConcurrencySafe(true))
}

// remoteCancelWait bounds the cancellation of a remote task when a call
// is interrupted.
const remoteCancelWait = 5 * time.Second

func (c *Client) callTool(ctx context.Context, input map[string]any) iter.Seq2[tool.Chunk, error] {
	return func(yield func(tool.Chunk, error) bool) {
		text, _ := input["message"].(string)
		if strings.TrimSpace(text) == "" {
			yield(tool.Chunk{}, errors.New("message is required"))
			return
		}
		msg := &Message{MessageID: stamp.Default.NewID(), Role: RoleUser, Parts: []Part{TextPart(text)}}
		msg.ContextID, _ = input["context_id"].(string)
		msg.TaskID, _ = input["task_id"].(string)
		req := SendMessageRequest{Message: msg}
		var r remoteRun
		if c.Streaming() {
			for ev, err := range c.SendStreamingMessage(ctx, req) {
				if err != nil {
					yield(tool.Chunk{}, c.callErr(ctx, &r, err))
					return
				}
				if delta := r.take(ev); delta != "" {
					if !yield(tool.Text(delta), nil) {
						return
					}
				}
			}
		} else {
			res, err := c.SendMessage(ctx, req)
			if err != nil {
				yield(tool.Chunk{}, c.callErr(ctx, &r, err))
				return
			}
			r.take(StreamResponse{Task: res.Task, Message: res.Message})
		}
		if ctx.Err() != nil {
			yield(tool.Chunk{}, c.callErr(ctx, &r, ctx.Err()))
			return
		}
		final, err := r.final(c.card.Name)
		if err != nil {
			yield(tool.Chunk{}, err)
			return
		}
		ch := tool.Chunk{Metadata: map[string]any{"a2a": map[string]any{"task_id": r.taskID, "context_id": r.contextID, "state": string(r.state)}}}
		if final != "" {
			ch.Content = tool.Text(final).Content
		}
		yield(ch, nil)
	}
}

// callErr is a call's error; an interrupted call cancels its remote task
// first, on a context of its own since the call's is over.
func (c *Client) callErr(ctx context.Context, r *remoteRun, err error) error {
	if ctx.Err() != nil && r.taskID != "" && !r.state.Terminal() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), remoteCancelWait)
		c.CancelTask(cctx, CancelTaskRequest{ID: r.taskID})
		cancel()
		return ctx.Err()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("the remote agent %q: %w", c.card.Name, err)
}

// remoteRun is what a call learns of its remote task.
type remoteRun struct {
	taskID, contextID string
	state             TaskState
	status            *Message
	streamed          bool   // text deltas were given
	text              string // the task's artifacts' text, or a direct answer
}

// take learns from one stream event and returns the text it adds.
func (r *remoteRun) take(ev StreamResponse) string {
	switch {
	case ev.Message != nil:
		r.state = TaskStateCompleted
		r.contextID = ev.Message.ContextID
		r.text = ev.Message.Text("\n")
	case ev.Task != nil:
		r.taskID, r.contextID, r.state, r.status = ev.Task.ID, ev.Task.ContextID, ev.Task.Status.State, ev.Task.Status.Message
		if s := ev.Task.Text("\n\n"); s != "" {
			r.text = s
		}
	case ev.StatusUpdate != nil:
		r.taskID, r.contextID = ev.StatusUpdate.TaskID, ev.StatusUpdate.ContextID
		r.state, r.status = ev.StatusUpdate.Status.State, ev.StatusUpdate.Status.Message
	case ev.ArtifactUpdate != nil:
		r.taskID, r.contextID = ev.ArtifactUpdate.TaskID, ev.ArtifactUpdate.ContextID
		delta := partsText(ev.ArtifactUpdate.Artifact.Parts, "")
		if !ev.ArtifactUpdate.Append && r.streamed && delta != "" {
			// A new artifact: apart from the one before.
			delta = "\n\n" + delta
		}
		if delta != "" {
			r.streamed = true
		}
		return delta
	}
	return ""
}

// final is the text the call ends with after what it streamed, or the
// error a task that did not complete is.
func (r *remoteRun) final(name string) (string, error) {
	status := ""
	if r.status != nil {
		status = r.status.Text(" ")
	}
	switch {
	case r.state.Interrupted():
		ask := status
		if ask == "" {
			ask = "(it says nothing more)"
		}
		out := fmt.Sprintf("The remote agent %q needs input before it can finish (task_id %q, context_id %q): %s\nTo answer, call this tool again with task_id %q and the answer as message.",
			name, r.taskID, r.contextID, ask, r.taskID)
		if r.streamed {
			out = "\n\n" + out
		}
		return out, nil
	case r.state == TaskStateCompleted:
		if r.streamed {
			return "", nil
		}
		if r.text == "" {
			return status, nil
		}
		return r.text, nil
	case r.state == "":
		return "", fmt.Errorf("the remote agent %q answered nothing", name)
	}
	if status == "" {
		status = "no reason given"
	}
	return "", fmt.Errorf("the remote agent %q: its task %q is %s: %s", name, r.taskID, r.state, status)
}
