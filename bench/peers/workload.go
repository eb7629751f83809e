package peers

import (
	"context"
	"strconv"
	"strings"
	"sync"
)

// The conversation every implementation holds, as in agent/bench_test.go.
const (
	agentName    = "Friday"
	systemPrompt = "You are a helpful assistant."
	userInput    = "go"
	toolName     = "echo"
	toolDesc     = "Echo the input."
	callID       = "call_1"
	// toolInput is the "input" argument the tool call's fragments assemble.
	toolInput = "hello world, from the bench"
)

// toolFragments are the tool call's arguments as they stream, the same 10
// fragments as the core benchmark's.
var toolFragments = []string{`{"in`, `put"`, `: "`, `he`, `llo`, ` wo`, `rld`, `, fr`, `om the `, `bench"}`}

// textChunks are n text chunks of one block, "tok<i mod 10> ".
func textChunks(n int) []string {
	c := make([]string, n)
	for i := range c {
		c[i] = "tok" + strconv.Itoa(i%10) + " "
	}
	return c
}

// script is one workload: what the model streams and what the context holds
// before the reply.
type script struct {
	// tool makes the first model call stream one call of the echo tool
	// (toolFragments); the call after the tool's result streams text.
	tool bool
	// text are the chunks of the answering model call.
	text []string
	// prior is how many messages the context holds before the reply:
	// "question i" from the user and "answer i" from the agent, in turn.
	prior int
}

// w1 is one reply streaming 1,000 text chunks of one block.
func w1() script { return script{text: textChunks(1000)} }

// w2 is one tool call whose arguments arrive in 10 fragments, the tool
// runs, then a second model call streams 100 text chunks.
func w2() script { return script{tool: true, text: textChunks(100)} }

// w3 is w2 with n prior messages in the context.
func w3(n int) script { s := w2(); s.prior = n; return s }

// answer is the text the reply ends with.
func (s script) answer() string { return strings.Join(s.text, "") }

// priorText is the text of the i-th prior message; even ones are the
// user's.
func priorText(i int) string {
	if i%2 == 0 {
		return "question " + strconv.Itoa(i/2)
	}
	return "answer " + strconv.Itoa(i/2)
}

// probe records what an implementation's model and tool saw. It is nil in
// the benchmarks, which then record nothing.
type probe struct {
	mu         sync.Mutex
	toolInputs []string   // the "input" argument of every tool call
	requests   [][]string // per model call, the texts of its messages
}

func (p *probe) tool(input string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.toolInputs = append(p.toolInputs, input)
	p.mu.Unlock()
}

func (p *probe) request(texts []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.requests = append(p.requests, texts)
	p.mu.Unlock()
}

// replier is one implementation set up for one script.
type replier interface {
	// reply runs one reply to userInput over the script's prior messages,
	// consuming everything it streams, and hands each streamed text delta
	// to onText, which keeps nothing past the call.
	reply(ctx context.Context, onText func(string)) error
	// final is the last reply's answer as the framework reports it apart
	// from the stream; "" where the stream is the only report.
	final() string
}

// preparer is a replier whose framework keeps the history in a store of
// its own (adk-go's session): prepare readies the next reply, and the
// benchmarks run it with the timer stopped. The others reset their history
// in reply, as the core benchmark does.
type preparer interface {
	prepare(ctx context.Context) error
}

// impl names an implementation and builds it for a script; p may be nil.
type impl struct {
	name  string
	build func(s script, p *probe) (replier, error)
}

// impls are the implementations, ours first.
var impls = []impl{
	{"ours", newOurs},
	{"eino-react", newEinoReact},
	{"eino-adk", newEinoADK},
	{"adk-go", newADKGo},
	{"langchaingo", newLangchaingo},
}
