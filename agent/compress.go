package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
	"github.com/agentscope-go/agentscope/internal/pycompat/pyschema"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/state"
)

// errCount wraps a TokenCounter's failure: it ends the compression (and
// the reply) rather than taking the summary fallback, as in the reference.
var errCount = errors.New("count tokens")

// ErrContextOverflow is wrapped by the error a reply ends with when the
// system prompt (and the summary) alone pass the compression threshold:
// there is nothing left to compress.
var ErrContextOverflow = errors.New("context cannot be compressed")

// compressContext runs the compression before a reasoning step, through
// the on_compress_context chain (§3.11b).
func (r *run) compressContext() error {
	h := r.a.compressChain(r.compress)
	return h(r.ctx, CompressInput{Config: r.a.ctxCfg})
}

// head is the system prompt and the summary as the model gets them,
// built without drawing ids: counting runs before every reasoning step and
// must not change the ids a reply's blocks get.
func (r *run) head(ctx context.Context) ([]*message.Msg, error) {
	a, st := r.a, r.a.st
	prompt, err := a.systemPrompt(ctx)
	if err != nil {
		return nil, err
	}
	msgs := []*message.Msg{{Name: "system", Role: event.RoleSystem, Content: []block.Block{&block.Text{Text: prompt}}}}
	if s := summaryMsg(st.Summary); s != nil {
		msgs = append(msgs, s)
	}
	return msgs, nil
}

func summaryMsg(s block.Body) *message.Msg {
	switch {
	case s.Plain && s.Text == "":
		return nil
	case s.Plain:
		return &message.Msg{Name: "user", Role: event.RoleUser, Content: []block.Block{&block.Text{Text: s.Text}}}
	case len(s.Blocks) == 0:
		return nil
	}
	return &message.Msg{Name: "user", Role: event.RoleUser, Content: s.Blocks}
}

// inputTokens counts the model input the next reasoning step would send.
func (r *run) inputTokens(ctx context.Context, cfg *ContextConfig) (int, []*message.Msg, []model.ToolSchema, error) {
	n, _, head, tools, err := r.countInput(ctx, cfg, false)
	return n, head, tools, err
}

// countInput is inputTokens that, if images is set and the counter is an
// Estimator, also counts the context's images in the same walk (-1: not
// counted).
func (r *run) countInput(ctx context.Context, cfg *ContextConfig, images bool) (n, nImages int, head []*message.Msg, tools []model.ToolSchema, err error) {
	st := r.a.st
	head, err = r.head(ctx)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	tools = r.a.toolkit.Schemas(st.Tools.ActivatedGroups)
	// The list is the model input's buffer: counting runs before every
	// reasoning step, and the context's messages then sit in the slots
	// the model input finds them in.
	msgs := r.a.fillInput(head, st.Context)
	if e, ok := cfg.TokenCounter.(*Estimator); ok && images {
		n, nImages = r.countCached(e, msgs, tools, len(head))
		return n, nImages, head, tools, nil
	}
	if n, err = cfg.TokenCounter.CountTokens(ctx, msgs, tools); err != nil {
		return 0, 0, nil, nil, fmt.Errorf("%w: %w", errCount, err)
	}
	return n, -1, head, tools, nil
}

// compress is the innermost compression handler (_compress_context_impl).
// Everything it changes is computed aside and swapped into the state in
// one step at the end, so a cancellation (or any error) before that leaves
// the state as it was.
func (r *run) compress(ctx context.Context, in CompressInput) error {
	a, st := r.a, r.a.st
	cfg, err := in.Config.withDefaults(a.model)
	if err != nil {
		return err
	}
	var tokens int
	var head []*message.Msg
	var tools []model.ToolSchema
	if _, ok := cfg.TokenCounter.(*Estimator); ok {
		// One walk over the context per step: the images are counted
		// with the tokens, and evicted (then counted again) only past
		// the limit.
		var images int
		if tokens, images, head, tools, err = r.countInput(ctx, &cfg, true); err != nil {
			return err
		}
		if images > max(cfg.MaxImages, 0) {
			if err := r.limitImages(ctx, &cfg); err != nil {
				return err
			}
			if tokens, head, tools, err = r.inputTokens(ctx, &cfg); err != nil {
				return err
			}
		}
	} else {
		if err := r.limitImages(ctx, &cfg); err != nil {
			return err
		}
		if tokens, head, tools, err = r.inputTokens(ctx, &cfg); err != nil {
			return err
		}
	}
	threshold := cfg.TriggerRatio * float64(cfg.ContextSize)
	if float64(tokens) < threshold {
		return nil
	}
	a.log.Info(fmt.Sprintf("[AGENT %s]: Current token count %d exceeds the threshold %d, activating compression.", a.name, tokens, int(threshold)))
	if len(st.Context) == 0 {
		return fmt.Errorf("%w: %s", ErrContextOverflow, pycompat.CompressionThresholdError(len(head) > 1, pyjson.FloatRepr(threshold)))
	}
	old, keep, err := r.split(ctx, &cfg, head, tools, cfg.ReserveRatio*float64(cfg.ContextSize))
	if err != nil {
		return err
	}
	if len(old) == 0 {
		a.log.Warn(fmt.Sprintf("The reserve ratio %.2f is too large to compress any context.Lower the reserve ratio to 0 as a fallback.", cfg.ReserveRatio))
		if old, keep, err = r.split(ctx, &cfg, head, tools, 0); err != nil {
			return err
		}
	}
	fields, err := r.summarize(ctx, &cfg, head, old, in.Instructions)
	if err != nil {
		// A cancelled summary call ends here, before the state changed;
		// the reply then closes as interrupted. Other failures fall back
		// to the previous summary.
		if ctx.Err() != nil {
			a.log.Warn("The context compression was interrupted and skipped. ")
			return err
		}
		if errors.Is(err, errCount) {
			return err
		}
		a.log.Warn(fmt.Sprintf("[AGENT %s]: Summary generation failed: %v. Falling back to context truncation.", a.name, err))
		fields = nil
	}
	return r.applyCompression(ctx, &cfg, fields, old, keep)
}

// applyCompression builds the new summary and swaps it and the reserved
// messages into the state. Its I/O (the offloader) runs detached from the
// reply's cancellation, as the reference shields it.
func (r *run) applyCompression(ctx context.Context, cfg *ContextConfig, fields map[string]string, old, keep []*message.Msg) error {
	a, st := r.a, r.a.st
	r.a.estWarm = false // the context is replaced: count it all again
	var summary block.Body
	if fields != nil {
		text, err := pycompat.Format(cfg.SummaryTemplate, fields)
		if err != nil {
			return fmt.Errorf("format the summary template: %w", err)
		}
		summary = block.PlainBody(text)
	} else if summaryMsg(st.Summary) != nil {
		summary = st.Summary.Clone()
	} else {
		summary = block.PlainBody(pycompat.CompressionFallbackSummary)
	}
	if cfg.Offloader != nil {
		path, err := cfg.Offloader.OffloadContext(context.WithoutCancel(ctx), st.SessionID, old)
		if err != nil {
			return fmt.Errorf("offload the compressed context: %w", err)
		}
		reminder := pycompat.ContextOffloadReminder(path)
		if summary.Plain {
			if !strings.Contains(summary.Text, reminder) {
				summary.Text += "\n" + reminder
			}
		} else if !slices.ContainsFunc(summary.Blocks, func(b block.Block) bool {
			t, ok := b.(*block.Text)
			return ok && t.Text == reminder
		}) {
			t := block.NewText(reminder)
			block.Fill(t, a.src)
			summary.Blocks = append(summary.Blocks, t)
		}
	}
	// The swap: nothing above touched the state.
	st.Summary = summary
	st.Context = keep
	clearReadCache(st, keep)
	a.log.Info(fmt.Sprintf("[AGENT %s]: The context compression finished.", a.name))
	return nil
}

// split cuts the context from its end so that about reserve tokens stay
// (_split_context_for_compression): whole messages first, then the blocks
// of the boundary message, never keeping a tool result whose call is
// compressed. The state is not changed: the kept messages are the state's
// own, the boundary message's halves are copies.
func (r *run) split(ctx context.Context, cfg *ContextConfig, head []*message.Msg, tools []model.ToolSchema, reserve float64) (old, keep []*message.Msg, err error) {
	all := r.a.st.Context
	buf := make([]*message.Msg, 0, len(head)+len(all)+1)
	count := func(tail ...[]*message.Msg) (int, error) {
		buf = append(buf[:0], head...)
		for _, t := range tail {
			buf = append(buf, t...)
		}
		n, err := cfg.TokenCounter.CountTokens(ctx, buf, tools)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errCount, err)
		}
		return n, nil
	}
	i := len(all) - 1
	for ; i >= 0; i-- {
		n, err := count(all[i:])
		if err != nil {
			return nil, nil, err
		}
		if float64(n) >= reserve {
			break
		}
	}
	if i < 0 {
		return nil, slices.Clone(all), nil
	}
	old = slices.Clone(all[:i])
	keep = slices.Clone(all[i+1:])
	boundary := all[i]
	content := boundary.Content
	attempt := *boundary
	j := len(content) - 1
	for ; j >= 0; j-- {
		attempt.Content = content[j:]
		n, err := count([]*message.Msg{&attempt}, keep)
		if err != nil {
			return nil, nil, err
		}
		if float64(n) > reserve {
			break
		}
	}
	// Moving the cut to compress an orphaned result can orphan another
	// one, so repeat until the kept part holds every call of its results.
	for {
		orphans := -1
		open := map[string]int{}
		for k := len(content) - 1; k > j; k-- {
			switch b := content[k].(type) {
			case *block.ToolResult:
				open[b.ID] = k
			case *block.ToolCall:
				delete(open, b.ID)
			}
		}
		for _, k := range open {
			orphans = max(orphans, k)
		}
		if orphans < 0 {
			break
		}
		j = orphans
	}
	if j >= 0 {
		m := boundary.Clone()
		m.Content = block.CloneList(content[:j+1])
		old = append(old, m)
	}
	if j+1 < len(content) {
		m := boundary.Clone()
		m.Content = block.CloneList(content[j+1:])
		keep = append([]*message.Msg{m}, keep...)
	}
	return old, keep, nil
}

// summarize asks the model for the structured summary of old
// (generate_structured_output over [system, summary, old, instructions,
// compression prompt]); when that input would not fit and the call
// fails, the oldest messages are dropped until it fits, and it is tried
// once more.
func (r *run) summarize(ctx context.Context, cfg *ContextConfig, head, old []*message.Msg, instr *block.Hint) (map[string]string, error) {
	a := r.a
	var instrMsgs []*message.Msg
	if instr != nil {
		m, err := message.AssistantMsg(a.name, []block.Block{instr.CloneBlock()}, message.WithStamp(a.src))
		if err != nil {
			return nil, err
		}
		instrMsgs = append(instrMsgs, m)
	}
	prompt := message.UserText("user", cfg.CompressionPrompt, message.WithStamp(a.src))
	build := func(old []*message.Msg) []*message.Msg {
		msgs := make([]*message.Msg, 0, len(head)+len(old)+len(instrMsgs)+1)
		msgs = append(append(append(append(msgs, head...), old...), instrMsgs...), prompt)
		return msgs
	}
	schema := model.ToolSchema{Name: pycompat.StructuredOutputFunc, Description: pycompat.StructuredOutputFuncDescription, Parameters: cfg.SummarySchema}
	tools := []model.ToolSchema{schema}
	msgs := build(old)
	n, err := cfg.TokenCounter.CountTokens(ctx, msgs, tools)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCount, err)
	}
	overflow := n > cfg.ContextSize
	if overflow {
		a.log.Warn(fmt.Sprintf("The current context length exceeds the model's context length (%d tokens), the compression maybe failed due to insufficient reserved context for compression.", cfg.ContextSize))
	}
	fields, err := r.structuredOutput(ctx, cfg, msgs, schema)
	if err == nil || !overflow || ctx.Err() != nil {
		return fields, err
	}
	a.log.Warn("Failed to compress context, which may be caused by insufficient reserved context for compression. Trying to compress by removing the oldest context.")
	for i := 1; i <= len(old); i++ {
		msgs = build(old[i:])
		n, cerr := cfg.TokenCounter.CountTokens(ctx, msgs, tools)
		if cerr != nil {
			return nil, fmt.Errorf("%w: %w", errCount, cerr)
		}
		if float64(n) < float64(cfg.ContextSize)*cfg.TriggerRatio {
			break
		}
	}
	return r.structuredOutput(ctx, cfg, msgs, schema)
}

// errNoStructuredOutput: the response held no valid summary.
var errNoStructuredOutput = errors.New("structured output failed")

// structuredOutput is the reference model's generate_structured_output on
// the agent's model: a forced call of the generate_structured_output tool,
// then auto, then no tool choice, moving on only when the response holds
// no valid output; a failed model call ends it.
func (r *run) structuredOutput(ctx context.Context, cfg *ContextConfig, msgs []*message.Msg, schema model.ToolSchema) (map[string]string, error) {
	a := r.a
	// The instruction joins the last (user) message, in a copy.
	last := msgs[len(msgs)-1].Clone()
	instr := block.NewText(pycompat.StructuredOutputInstruction)
	block.Fill(instr, a.src)
	last.Content = append(last.Content, instr)
	req := make([]*message.Msg, len(msgs))
	copy(req, msgs)
	req[len(req)-1] = last
	schemaVal, err := pyjson.Parse(string(cfg.SummarySchema))
	if err != nil {
		return nil, fmt.Errorf("summary schema: %w", err)
	}
	choices := []*model.ToolChoice{{Mode: pycompat.StructuredOutputFunc}, {Mode: model.ChoiceAuto}, nil}
	var lastErr error
	for _, choice := range choices {
		fields, err := r.structuredAttempt(ctx, &model.Request{Messages: req, Tools: []model.ToolSchema{schema}, ToolChoice: choice}, schemaVal)
		if err == nil {
			return fields, nil
		}
		if !errors.Is(err, errNoStructuredOutput) {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

func (r *run) structuredAttempt(ctx context.Context, req *model.Request, schema pyjson.Value) (map[string]string, error) {
	m := r.a.model
	acc := model.NewAccumulator(r.a.src)
	ctx, span := r.startSummarySpan(ctx, m, req)
	for chunk, err := range m.Stream(ctx, req) {
		if err != nil {
			if ctx.Err() != nil {
				r.endChatSpan(span, acc.Content(), acc.Usage(), true)
				return nil, ctx.Err()
			}
			err = &ModelCallError{Model: m.Name(), Attempts: 1, Err: err}
			failChatSpan(span, err)
			return nil, err
		}
		if err := acc.Add(chunk); err != nil {
			err = &StreamError{Model: m.Name(), Err: err}
			failChatSpan(span, err)
			return nil, err
		}
	}
	r.endChatSpan(span, acc.Content(), acc.Usage(), ctx.Err() != nil)
	if ctx.Err() != nil {
		// The reference's interrupted response: the compression is
		// skipped and the cancellation goes on.
		return nil, ctx.Err()
	}
	var input string
	found := false
	for _, b := range acc.Content() {
		if c, ok := b.(*block.ToolCall); ok && c.Name == pycompat.StructuredOutputFunc {
			input, found = c.Input, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("%w: Failed to generate structured output for model.", errNoStructuredOutput)
	}
	v, err := pyjson.Parse(input)
	if err != nil {
		var ok bool
		if v, ok = pyjson.Repair(input); !ok {
			return nil, fmt.Errorf("%w: Invalid structured output from model %s: %v", errNoStructuredOutput, m.Name(), err)
		}
	}
	if msg, bad := pyschema.BestMatch(schema, v); bad {
		return nil, fmt.Errorf("%w: Invalid structured output from model %s: %s", errNoStructuredOutput, m.Name(), msg)
	}
	if v.Kind != pyjson.Object {
		return nil, fmt.Errorf("%w: Invalid structured output from model %s: not an object", errNoStructuredOutput, m.Name())
	}
	fields := make(map[string]string, len(v.Keys))
	for i, k := range v.Keys {
		fields[k] = pyjson.Str(v.Items[i])
	}
	return fields, nil
}

// clearReadCache drops the Read tool's cache entries for files no kept
// Read call refers to (_clear_unreserved_read_cache).
func clearReadCache(st *state.AgentState, keep []*message.Msg) {
	if len(st.Tools.ReadFileCache) == 0 {
		return
	}
	paths := map[string]bool{}
	for _, m := range keep {
		for _, b := range m.Content {
			c, ok := b.(*block.ToolCall)
			if !ok || c.Name != "Read" {
				continue
			}
			v, err := pyjson.Parse(c.Input)
			if err != nil {
				if v, ok = pyjson.Repair(c.Input); !ok {
					continue
				}
			}
			if p, ok := v.Get("file_path"); ok && p.Kind == pyjson.String {
				paths[p.Str] = true
			}
		}
	}
	cache := st.Tools.ReadFileCache[:0:0]
	for _, raw := range st.Tools.ReadFileCache {
		var e struct {
			FilePath string `json:"file_path"`
		}
		if json.Unmarshal(raw, &e) == nil && paths[e.FilePath] {
			cache = append(cache, raw)
		}
	}
	st.Tools.ReadFileCache = cache
}

// CompressContext runs the compression a reasoning step starts with, now
// (the reference's compress_context): images beyond the limit are evicted
// and, if the context passed the threshold, it is compressed. It goes
// through the CompressContext middleware hooks with cfg (nil: the agent's
// Config.Context) and instructions for the summary (nil: none). It fails
// with ErrBusy while a reply runs; a parked reply is not running.
func (a *Agent) CompressContext(ctx context.Context, cfg *ContextConfig, instructions *block.Hint) error {
	if err := a.acquire(); err != nil {
		return err
	}
	defer a.release()
	if a.mws.any() {
		ctx = context.WithValue(ctx, replyStateKey{}, a.st)
	}
	c := a.ctxCfg
	if cfg != nil {
		c = *cfg
	}
	r := &run{a: a, ctx: ctx}
	return a.compressChain(r.compress)(ctx, CompressInput{Config: c, Instructions: instructions})
}
