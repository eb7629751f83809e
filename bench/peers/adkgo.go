package peers

import (
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"strings"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"
)

// adkModel is the script as an adk-go model.LLM, yielding what adk-go's
// own streaming models yield: a partial response per text chunk, then the
// aggregated response. adk-go has no streamed tool-call arguments in its
// model interface (genai's FunctionCall carries whole arguments, or
// JSON-path PartialArgs): like adk-go's OpenAI model, this one buffers the
// 10 fragments, parses them, and yields the whole call (once partial,
// once aggregated). The partial responses are fresh per call (the
// framework keeps them), carved from slabs; the aggregate text is built
// with a strings.Builder, where adk-go's own aggregator concatenates with
// += (quadratic in the chunks), a cost this benchmark does not charge it.
type adkModel struct {
	s script
	p *probe
}

func (m *adkModel) Name() string { return "mock-model" }

func (m *adkModel) GenerateContent(_ context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		if m.p != nil {
			var texts []string
			for _, c := range req.Contents {
				var b strings.Builder
				for _, part := range c.Parts {
					b.WriteString(part.Text)
				}
				texts = append(texts, b.String())
			}
			m.p.request(texts)
		}
		answer := !m.s.tool
		if n := len(req.Contents); n > 0 {
			for _, part := range req.Contents[n-1].Parts {
				if part.FunctionResponse != nil {
					answer = true
				}
			}
		}
		if !answer {
			var args strings.Builder
			for _, f := range toolFragments {
				args.WriteString(f)
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(args.String()), &in); err != nil {
				yield(nil, err)
				return
			}
			call := &genai.Part{FunctionCall: &genai.FunctionCall{ID: callID, Name: toolName, Args: in}}
			if stream && !yield(&model.LLMResponse{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{call}}, Partial: true}, nil) {
				return
			}
			yield(&model.LLMResponse{
				Content:      &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{call}},
				TurnComplete: true, FinishReason: genai.FinishReasonStop,
			}, nil)
			return
		}
		var text strings.Builder
		if stream {
			n := len(m.s.text)
			resps := make([]model.LLMResponse, n)
			contents := make([]genai.Content, n)
			parts := make([]genai.Part, n)
			ptrs := make([]*genai.Part, n)
			for i, c := range m.s.text {
				parts[i].Text = c
				ptrs[i] = &parts[i]
				contents[i] = genai.Content{Role: genai.RoleModel, Parts: ptrs[i : i+1 : i+1]}
				resps[i] = model.LLMResponse{Content: &contents[i], Partial: true}
				text.WriteString(c)
				if !yield(&resps[i], nil) {
					return
				}
			}
		} else {
			for _, c := range m.s.text {
				text.WriteString(c)
			}
		}
		yield(&model.LLMResponse{
			Content:      &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: text.String()}}},
			TurnComplete: true, FinishReason: genai.FinishReasonStop,
		}, nil)
	}
}

type adkEchoIn struct {
	Input string `json:"input"`
}

type adkEchoOut struct {
	Output string `json:"output"`
}

// adkGo is adk-go's llmagent run by a runner over the in-memory session
// service, with SSE streaming (partial events reach the caller). The
// history is the session: each reply gets a new session holding the
// prior messages as events, made in prepare.
type adkGo struct {
	s    script
	r    *runner.Runner
	svc  session.Service
	sess session.Session
	n    int
	last string
}

func newADKGo(s script, p *probe) (replier, error) {
	echo, err := functiontool.New(functiontool.Config{Name: toolName, Description: toolDesc},
		func(_ agent.Context, in adkEchoIn) (adkEchoOut, error) {
			p.tool(in.Input)
			return adkEchoOut{Output: in.Input}, nil
		})
	if err != nil {
		return nil, err
	}
	a, err := llmagent.New(llmagent.Config{
		Name: agentName, Description: "The benchmark's agent.", Model: &adkModel{s: s, p: p},
		Instruction: systemPrompt, Tools: []tool.Tool{echo},
	})
	if err != nil {
		return nil, err
	}
	g := &adkGo{s: s, svc: session.InMemoryService()}
	g.r, err = runner.New(runner.Config{AppName: "bench", Agent: a, SessionService: g.svc})
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (g *adkGo) prepare(ctx context.Context) error {
	if g.sess != nil {
		if err := g.svc.Delete(ctx, &session.DeleteRequest{AppName: "bench", UserID: "user", SessionID: g.sess.ID()}); err != nil {
			return err
		}
	}
	g.n++
	created, err := g.svc.Create(ctx, &session.CreateRequest{AppName: "bench", UserID: "user", SessionID: "s" + strconv.Itoa(g.n)})
	if err != nil {
		return err
	}
	g.sess = created.Session
	for i := range g.s.prior {
		ev := session.NewEvent(ctx, "prior")
		if i%2 == 0 {
			ev.Author, ev.Content = "user", genai.NewContentFromText(priorText(i), genai.RoleUser)
		} else {
			ev.Author, ev.Content = agentName, genai.NewContentFromText(priorText(i), genai.RoleModel)
		}
		if err := g.svc.AppendEvent(ctx, g.sess, ev); err != nil {
			return err
		}
	}
	return nil
}

func (g *adkGo) reply(ctx context.Context, onText func(string)) error {
	g.last = ""
	msg := genai.NewContentFromText(userInput, genai.RoleUser)
	for ev, err := range g.r.Run(ctx, "user", g.sess.ID(), msg, agent.RunConfig{StreamingMode: agent.StreamingModeSSE}) {
		if err != nil {
			return err
		}
		if ev.Content == nil {
			continue
		}
		for _, part := range ev.Content.Parts {
			if part.Text == "" || part.Thought {
				continue
			}
			if ev.Partial {
				onText(part.Text)
			} else if ev.Author == agentName {
				g.last = part.Text
			}
		}
	}
	return nil
}

func (g *adkGo) final() string { return g.last }
