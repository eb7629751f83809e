package server_test

import (
	"bufio"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/engine"
	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server"
	"github.com/agentscope-go/agentscope/session/memory"
	"github.com/agentscope-go/agentscope/state"
)

// A server on the in-memory store with one agent: create a session, open
// its stream, post a message, and read the reply's events.
func ExampleNew() {
	m := scripted.New("scripted", []scripted.Turn{scripted.Stream(scripted.Text("Hi there!"))})
	srv, err := server.New(server.Config{
		Engine: engine.Config{
			Store: memory.New(memory.Config{}),
			Agents: []engine.Agent{{ID: "helper", Name: "assistant", New: func(st *state.AgentState) (*agent.Agent, error) {
				return agent.New(agent.Config{Name: "assistant", Model: m, State: st, RuntimeState: agent.RuntimeStateConfig{Disabled: true}})
			}}},
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	call := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		req.Header.Set("X-User-ID", "alice")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return res
	}
	res := call("POST", "/sessions/", `{"agent_id":"helper"}`)
	var sid string
	fmt.Sscanf(readAll(res), `{"session_id":%q}`, &sid)

	stream := call("GET", "/sessions/"+sid+"/stream", "")
	defer stream.Body.Close()
	res = call("POST", "/chat/", `{"agent_id":"helper","session_id":"`+sid+`","input":{"role":"user","name":"alice","content":[{"type":"text","text":"hello"}]}}`)
	fmt.Println(res.StatusCode)
	res.Body.Close()

	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "id: ") {
			fmt.Print(line[4:], " ")
		}
		if strings.HasPrefix(line, "data: ") {
			typ := line[strings.Index(line, `"type":"`)+8:]
			typ = typ[:strings.IndexByte(typ, '"')]
			fmt.Println(typ)
			if typ == "REPLY_END" {
				break
			}
		}
	}
	// Output:
	// 200
	// 1 REPLY_START
	// 2 MODEL_CALL_START
	// 3 TEXT_BLOCK_START
	// 4 TEXT_BLOCK_DELTA
	// 5 TEXT_BLOCK_END
	// 6 MODEL_CALL_END
	// 7 REPLY_END
}

func readAll(res *http.Response) string {
	defer res.Body.Close()
	var b strings.Builder
	bufio.NewReader(res.Body).WriteTo(&b)
	return b.String()
}

// A configured agent with Derive is a base for the agents users create
// over POST /agent/: the user's agent has its own name (and prompt), on
// the base's model and tools.
func ExampleAgent_derive() {
	m := scripted.New("scripted", []scripted.Turn{scripted.Stream(scripted.Text("Brief."))})
	derive := func(st *state.AgentState, o engine.Overrides) (*agent.Agent, error) {
		cfg := agent.Config{Name: "assistant", Model: m, State: st, SystemPrompt: "Be helpful.", RuntimeState: agent.RuntimeStateConfig{Disabled: true}}
		if o.Name != "" {
			cfg.Name = o.Name
		}
		if o.SystemPrompt != "" {
			cfg.SystemPrompt = o.SystemPrompt
		}
		return agent.New(cfg)
	}
	srv, err := server.New(server.Config{
		Engine: engine.Config{
			Store: memory.New(memory.Config{}),
			Agents: []engine.Agent{{ID: "base", Name: "assistant", Derive: derive,
				New: func(st *state.AgentState) (*agent.Agent, error) { return derive(st, engine.Overrides{}) }}},
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	call := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		req.Header.Set("X-User-ID", "alice")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return res
	}
	res := call("POST", "/agent/", `{"name":"terse","system_prompt":"Answer in one word."}`)
	fmt.Println(res.StatusCode)
	var aid string
	fmt.Sscanf(readAll(res), `{"agent_id":%q}`, &aid)
	var sid string
	fmt.Sscanf(readAll(call("POST", "/sessions/", `{"agent_id":"`+aid+`"}`)), `{"session_id":%q}`, &sid)

	stream := call("GET", "/sessions/"+sid+"/stream", "")
	defer stream.Body.Close()
	call("POST", "/chat/", `{"agent_id":"`+aid+`","session_id":"`+sid+`","input":{"role":"user","name":"alice","content":[{"type":"text","text":"hi"}]}}`).Body.Close()
	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() {
		if line := lines.Text(); strings.Contains(line, `"type":"REPLY_START"`) {
			name := line[strings.Index(line, `"name":"`)+8:]
			fmt.Println("reply by", name[:strings.IndexByte(name, '"')])
			break
		}
	}
	// Output:
	// 201
	// reply by terse
}
