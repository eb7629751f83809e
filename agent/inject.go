package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/state"
)

var (
	currentTimeRE = regexp.MustCompile(`<current-time>(.*?)</current-time>`)
	timezoneRE    = regexp.MustCompile(`<timezone>(.*?)</timezone>`)
)

// injectRuntimeState appends the runtime-state hint before a model call
// when one of its fields fires (§3.8): the time (first injection, or older
// than the interval, or in the future), the task reminder, and at a
// reply's first step the context length once it nears the compression
// threshold.
func (r *run) injectRuntimeState() error {
	a, st := r.a, r.a.st
	ic := &a.inject
	if !ic.InjectRuntimeState {
		return nil
	}
	var fields []Field
	loc, err := time.LoadLocation(ic.Timezone)
	if err != nil || ic.Timezone == "" {
		loc = time.UTC
	}
	now := a.now().In(loc)
	if r.timeDue(now) {
		fields = append(fields, Field{"current-time", pycompat.Strftime(now, ic.TimeFormat)}, Field{"timezone", ic.Timezone})
	}
	if text, ok := r.tasksDue(); ok {
		fields = append(fields, Field{"tasks", text})
	}
	// The context length is checked only at a reply's first step, where
	// the context has just grown by the new input.
	if st.Reply.CurIter == 0 {
		cc := &a.ctxCfg
		n, _, _, err := r.inputTokens(r.ctx, cc)
		if err != nil {
			return err
		}
		size := float64(cc.ContextSize)
		if float64(n) > max(0, cc.TriggerRatio-ic.ContextBufferRatio)*size {
			fields = append(fields, Field{"context-length", pycompat.ContextLength(n, int(cc.TriggerRatio*size))})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	fields = append(fields, ic.ExtraFields...)
	lines := make([]string, len(fields))
	for i, f := range fields {
		lines[i] = "<" + f.Key + ">" + fmt.Sprint(f.Value) + "</" + f.Key + ">"
	}
	text := strings.ReplaceAll(ic.Template, "{runtime_state}", strings.Join(lines, "\n"))
	h := block.NewHint(text, ic.Source)
	block.Fill(h, a.src)
	st.AppendContext(a.src, a.name, h)
	if !ic.EmitHintEvent {
		return nil
	}
	return r.out.emit(&event.HintBlock{ReplyID: r.replyID, BlockID: h.ID, Source: h.Source, Hint: h.Hint.Clone()})
}

// injectedHints yields the text of earlier runtime-state hints, newest
// last.
func (r *run) injectedHints() []string {
	a := r.a
	var out []string
	for _, m := range a.st.Context {
		if m.Role != event.RoleAssistant {
			continue
		}
		for _, b := range m.Content {
			h, ok := b.(*block.Hint)
			if !ok || h.Source.String != a.inject.Source {
				continue
			}
			if h.Hint.Plain {
				out = append(out, h.Hint.Text)
			} else {
				for _, hb := range h.Hint.Blocks {
					if t, ok := hb.(*block.Text); ok {
						out = append(out, t.Text)
					}
				}
			}
		}
	}
	return out
}

// timeDue: no earlier injection carries a readable time, or it is older
// than the interval, or it lies in the future.
func (r *run) timeDue(now time.Time) bool {
	ic := &r.a.inject
	hints := r.injectedHints()
	for i := len(hints) - 1; i >= 0; i-- {
		m := currentTimeRE.FindStringSubmatch(hints[i])
		if m == nil {
			continue
		}
		loc := time.UTC
		if z := timezoneRE.FindStringSubmatch(hints[i]); z != nil {
			if l, err := time.LoadLocation(z[1]); err == nil {
				loc = l
			}
		}
		at, err := pycompat.ParseStrftime(m[1], ic.TimeFormat, loc)
		if err != nil {
			continue
		}
		elapsed := now.Sub(at)
		return elapsed < 0 || elapsed.Hours() > ic.TimeInterval
	}
	return true
}

// tasksDue: unfinished tasks exist and neither a task tool call nor an
// earlier tasks reminder is in the context.
func (r *run) tasksDue() (string, bool) {
	a, st := r.a, r.a.st
	var pending, inProgress int
	for _, t := range st.Tasks.Tasks {
		switch t.State {
		case state.TaskPending, "":
			pending++
		case state.TaskInProgress:
			inProgress++
		}
	}
	if pending+inProgress == 0 {
		return "", false
	}
	for _, m := range st.Context {
		for _, b := range m.Content {
			if c, ok := b.(*block.ToolCall); ok && slices.Contains(a.inject.TaskToolNames, c.Name) {
				return "", false
			}
		}
	}
	for _, h := range r.injectedHints() {
		if strings.Contains(h, "<tasks>") {
			return "", false
		}
	}
	return pycompat.TasksReminder(inProgress, pending), true
}
