package peers

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/permission"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// ours is this repository's agent, set up as agent/bench_test.go sets it
// up: the scripted model, injection off, every event consumed through
// Agent.Stream.
type ours struct {
	m     *scripted.Model
	st    *state.AgentState
	a     *agent.Agent
	prior []*message.Msg
	in    []*message.Msg
}

func newOurs(s script, p *probe) (replier, error) {
	var turns []scripted.Turn
	if s.tool {
		steps := make([]scripted.Step, len(toolFragments))
		for i, f := range toolFragments {
			name := ""
			if i == 0 {
				name = toolName
			}
			steps[i] = scripted.ToolCall(callID, name, f)
		}
		turns = append(turns, scripted.Stream(steps...))
	}
	steps := make([]scripted.Step, len(s.text))
	for i, c := range s.text {
		steps[i] = scripted.Text(c)
	}
	turns = append(turns, scripted.Stream(steps...))
	// No recording: it would serialize the history.
	sm := scripted.New("mock-model", turns)
	var m model.ChatModel = sm
	if p != nil {
		m = probedModel{sm, p}
	}

	echo, err := tool.New(toolName, toolDesc,
		json.RawMessage(`{"type":"object","properties":{"input":{"type":"string"}},"required":[]}`),
		func(_ context.Context, in map[string]any) iter.Seq2[tool.Chunk, error] {
			return func(yield func(tool.Chunk, error) bool) {
				s, _ := in["input"].(string)
				p.tool(s)
				yield(tool.Text(s), nil)
			}
		},
		// The tool's own policy would ask a human (the reference's
		// default for function tools); the benchmark allows it.
		tool.WithPermissionCheck(func(context.Context, map[string]any, *permission.Context) permission.Decision {
			return permission.Decision{Behavior: block.Allow, Message: toolName + ": allow"}
		}))
	if err != nil {
		return nil, err
	}
	tk, err := tool.NewToolkit([]tool.Tool{echo})
	if err != nil {
		return nil, err
	}
	o := &ours{m: sm, st: state.New(stamp.Default), in: []*message.Msg{message.UserText("user", userInput)}}
	for i := range s.prior {
		if i%2 == 0 {
			o.prior = append(o.prior, message.UserText("user", priorText(i)))
		} else {
			o.prior = append(o.prior, message.AssistantText(agentName, priorText(i)))
		}
	}
	o.a, err = agent.New(agent.Config{
		Name: agentName, Model: m, SystemPrompt: systemPrompt, Toolkit: tk, State: o.st,
		RuntimeState: agent.RuntimeStateConfig{Disabled: true}, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (o *ours) reply(ctx context.Context, onText func(string)) error {
	o.m.Rewind()
	// The benchmark keeps the state it gave the agent, to reset the
	// history between replies.
	o.st.Context = append(o.st.Context[:0], o.prior...)
	for e, err := range o.a.Stream(ctx, o.in) {
		if err != nil {
			return err
		}
		if d, ok := e.(*event.TextBlockDelta); ok {
			onText(d.Delta)
		}
	}
	return nil
}

// final is the reply message, the last of the context.
func (o *ours) final() string {
	if len(o.st.Context) == 0 {
		return ""
	}
	t, _ := o.st.Context[len(o.st.Context)-1].TextContent("")
	return t
}

// probedModel records the texts of every request's messages.
type probedModel struct {
	model.ChatModel
	p *probe
}

func (m probedModel) Stream(ctx context.Context, req *model.Request) iter.Seq2[model.Chunk, error] {
	texts := make([]string, 0, len(req.Messages))
	for _, msg := range req.Messages {
		t, _ := msg.TextContent("\n")
		texts = append(texts, t)
	}
	m.p.request(texts)
	return m.ChatModel.Stream(ctx, req)
}
