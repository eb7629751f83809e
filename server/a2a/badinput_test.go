package a2a_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/model/scripted"
	"github.com/agentscope-go/agentscope/server/a2a"
)

// Every bad request gets its JSON-RPC error (and HTTP status) and
// changes nothing: no session, no event, no state, no message.
func TestBadInput(t *testing.T) {
	e := newEnv(t, []scripted.Turn{
		scripted.Stream(scripted.Text("Done.")),
		scripted.Stream(scripted.ToolCall("c1", "save_note", `{"text":"x"}`)),
	}, "tok")
	auth := "Bearer tok"
	done := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m1", text("hi"))}).task(t)
	parked := e.call("SendMessage", a2a.SendMessageRequest{Message: userMessage("m2", text("save"))}).task(t)
	if done.Status.State != a2a.TaskStateCompleted || parked.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("setup: %s %s", done.Status.State, parked.Status.State)
	}
	msg := func(edit func(m map[string]any)) string {
		m := map[string]any{"messageId": "mx", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello"}}}
		edit(m)
		b, _ := json.Marshal(map[string]any{"message": m})
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":%s}`, b)
	}
	rpc := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("x", 1<<20) + `"}]}}}`
	cases := []struct {
		name   string
		path   string
		body   string
		hdr    []string
		status int
		code   int
	}{
		{"no token", "/a2a/a1", rpc("GetTask", `{"id":"x"}`), []string{"Authorization", ""}, 401, a2a.CodeUnauthenticated},
		{"wrong token", "/a2a/a1", rpc("GetTask", `{"id":"x"}`), []string{"Authorization", "Bearer nope"}, 401, a2a.CodeUnauthenticated},
		{"no user", "/a2a/a1", rpc("GetTask", `{"id":"x"}`), []string{"X-User-ID", ""}, 401, a2a.CodeUnauthenticated},
		{"body over the limit", "/a2a/a1", big, nil, 413, a2a.CodeInvalidRequest},
		{"malformed JSON", "/a2a/a1", `{"jsonrpc":"2.0","id":1,"method":`, nil, 200, a2a.CodeParseError},
		{"invalid UTF-8", "/a2a/a1", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":{\"messageId\":\"m\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"\xff\"}]}}}", nil, 200, a2a.CodeParseError},
		{"a batch", "/a2a/a1", `[` + rpc("GetTask", `{"id":"x"}`) + `]`, nil, 200, a2a.CodeInvalidRequest},
		{"not JSON-RPC 2.0", "/a2a/a1", `{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}`, nil, 200, a2a.CodeInvalidRequest},
		{"a notification", "/a2a/a1", `{"jsonrpc":"2.0","method":"SendMessage","params":{}}`, nil, 200, a2a.CodeInvalidRequest},
		{"an object id", "/a2a/a1", `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}`, nil, 200, a2a.CodeInvalidRequest},
		{"unknown method", "/a2a/a1", rpc("tasks/get", `{"id":"x"}`), nil, 200, a2a.CodeMethodNotFound},
		{"v0.3 (no version)", "/a2a/a1", rpc("SendMessage", `{}`), []string{"A2A-Version", ""}, 200, a2a.CodeVersionNotSupported},
		{"version 2.0", "/a2a/a1", rpc("SendMessage", `{}`), []string{"A2A-Version", "2.0"}, 200, a2a.CodeVersionNotSupported},
		{"wrong content type", "/a2a/a1", rpc("GetTask", `{"id":"x"}`), []string{"Content-Type", "text/plain"}, 200, a2a.CodeContentTypeNotSupported},
		{"unknown agent", "/a2a/nobody", rpc("GetTask", `{"id":"x"}`), nil, 404, a2a.CodeInvalidRequest},
		{"params not an object", "/a2a/a1", rpc("GetTask", `["x"]`), nil, 200, a2a.CodeInvalidParams},
		{"params of the wrong type", "/a2a/a1", rpc("GetTask", `{"id":5}`), nil, 200, a2a.CodeInvalidParams},
		{"no message", "/a2a/a1", rpc("SendMessage", `{}`), nil, 200, a2a.CodeInvalidParams},
		{"no messageId", "/a2a/a1", msg(func(m map[string]any) { delete(m, "messageId") }), nil, 200, a2a.CodeInvalidParams},
		{"agent role", "/a2a/a1", msg(func(m map[string]any) { m["role"] = "ROLE_AGENT" }), nil, 200, a2a.CodeInvalidParams},
		{"unknown role", "/a2a/a1", msg(func(m map[string]any) { m["role"] = "ROLE_BOSS" }), nil, 200, a2a.CodeInvalidParams},
		{"no parts", "/a2a/a1", msg(func(m map[string]any) { m["parts"] = []any{} }), nil, 200, a2a.CodeInvalidParams},
		{"a part of two kinds", "/a2a/a1", msg(func(m map[string]any) { m["parts"] = []any{map[string]any{"text": "a", "url": "https://x.example/"}} }), nil, 200, a2a.CodeInvalidParams},
		{"a relative URL part", "/a2a/a1", msg(func(m map[string]any) { m["parts"] = []any{map[string]any{"url": "x.png", "mediaType": "image/png"}} }), nil, 200, a2a.CodeContentTypeNotSupported},
		{"push notifications", "/a2a/a1", msg(func(m map[string]any) {}) + "", nil, 200, 0}, // replaced below
		{"unknown context", "/a2a/a1", msg(func(m map[string]any) { m["contextId"] = "nosuchsession" }), nil, 200, a2a.CodeInvalidParams},
		{"another user's context", "/a2a/a1", msg(func(m map[string]any) { m["contextId"] = done.ContextID }), []string{"X-User-ID", "mallory"}, 200, a2a.CodeInvalidParams},
		{"a context of another agent", "/a2a/a2", msg(func(m map[string]any) { m["contextId"] = done.ContextID }), nil, 200, a2a.CodeInvalidParams},
		{"a new message to a parked context", "/a2a/a1", msg(func(m map[string]any) { m["contextId"] = parked.ContextID }), nil, 200, a2a.CodeUnsupportedOperation},
		{"unknown task", "/a2a/a1", rpc("GetTask", `{"id":"nosuchtask"}`), nil, 200, a2a.CodeTaskNotFound},
		{"a task id that is no reply", "/a2a/a1", rpc("GetTask", fmt.Sprintf(`{"id":%q}`, done.ContextID+"-999")), nil, 200, a2a.CodeTaskNotFound},
		{"another user's task", "/a2a/a1", rpc("GetTask", fmt.Sprintf(`{"id":%q}`, done.ID)), []string{"X-User-ID", "mallory"}, 200, a2a.CodeTaskNotFound},
		{"another user's task, cancelled", "/a2a/a1", rpc("CancelTask", fmt.Sprintf(`{"id":%q}`, parked.ID)), []string{"X-User-ID", "mallory"}, 200, a2a.CodeTaskNotFound},
		{"another user's task, answered", "/a2a/a1", msg(func(m map[string]any) { m["taskId"] = parked.ID; m["parts"] = []any{map[string]any{"text": "yes"}} }), []string{"X-User-ID", "mallory"}, 200, a2a.CodeTaskNotFound},
		{"a task of another agent", "/a2a/a2", rpc("GetTask", fmt.Sprintf(`{"id":%q}`, done.ID)), nil, 200, a2a.CodeTaskNotFound},
		{"a resume with nothing parked", "/a2a/a1", msg(func(m map[string]any) { m["taskId"] = done.ID; m["parts"] = []any{map[string]any{"text": "yes"}} }), nil, 200, a2a.CodeUnsupportedOperation},
		{"a task and another context", "/a2a/a1", msg(func(m map[string]any) { m["taskId"] = parked.ID; m["contextId"] = done.ContextID }), nil, 200, a2a.CodeInvalidParams},
		{"an answer of another kind", "/a2a/a1", msg(func(m map[string]any) {
			m["taskId"] = parked.ID
			m["parts"] = []any{map[string]any{"data": map[string]any{"results": []any{map[string]any{"toolCallId": "c1", "output": "x"}}}}}
		}), nil, 200, a2a.CodeInvalidParams},
		{"a confirmation of an unknown call", "/a2a/a1", msg(func(m map[string]any) {
			m["taskId"] = parked.ID
			m["parts"] = []any{map[string]any{"data": map[string]any{"confirmations": []any{map[string]any{"toolCallId": "nope", "confirmed": true}}}}}
		}), nil, 200, a2a.CodeInvalidParams},
		{"a native event for another reply", "/a2a/a1", msg(func(m map[string]any) {
			m["taskId"] = parked.ID
			m["parts"] = []any{map[string]any{"data": map[string]any{"type": "USER_CONFIRM_RESULT", "reply_id": "other", "confirm_results": []any{map[string]any{"confirmed": true, "tool_call": map[string]any{"type": "tool_call", "id": "c1", "name": "save_note", "input": "{}"}}}}}}
		}), nil, 200, a2a.CodeInvalidParams},
		{"cancel a completed task", "/a2a/a1", rpc("CancelTask", fmt.Sprintf(`{"id":%q}`, done.ID)), nil, 200, a2a.CodeTaskNotCancelable},
		{"subscribe to a completed task", "/a2a/a1", rpc("SubscribeToTask", fmt.Sprintf(`{"id":%q}`, done.ID)), nil, 200, a2a.CodeUnsupportedOperation},
		{"ListTasks", "/a2a/a1", rpc("ListTasks", `{}`), nil, 200, a2a.CodeUnsupportedOperation},
		{"push config", "/a2a/a1", rpc("CreateTaskPushNotificationConfig", `{}`), nil, 200, a2a.CodePushNotificationNotSupported},
	}
	cases[24].name, cases[24].code = "a push notification config on send", a2a.CodePushNotificationNotSupported
	cases[24].body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]},"configuration":{"taskPushNotificationConfig":{"url":"https://hook.example/"}}}}`
	before := e.snap()
	if len(before) != 2 {
		t.Fatalf("setup sessions %v", before)
	}
	for _, tc := range cases {
		r := e.post(tc.path, tc.body, append([]string{"Authorization", auth}, tc.hdr...)...)
		if r.status != tc.status || r.code() != tc.code || r.resp.JSONRPC != "2.0" || r.resp.Error.Message == "" {
			t.Errorf("%s: HTTP %d, %s; want HTTP %d, code %d", tc.name, r.status, cut(r.body), tc.status, tc.code)
		}
		if after := e.snap(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("%s changed %v to %v", tc.name, before, after)
		}
	}
	// The parked task is still parked, and still answers to its owner.
	yes := userMessage("m9", text("no"))
	yes.TaskID = parked.ID
	if r := e.call("SendMessage", a2a.SendMessageRequest{Message: yes}, "Authorization", auth); r.task(t).Status.State == a2a.TaskStateInputRequired {
		t.Fatalf("the parked task did not resume: %s", r.body)
	}
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// The cards: one per agent, the first at the root, naming the JSON-RPC
// endpoint and what a request needs; the token guards them too.
func TestAgentCards(t *testing.T) {
	e := newEnv(t, nil, "tok")
	get := func(path string, hdr ...string) (int, a2a.AgentCard) {
		r, _ := http.NewRequest("GET", e.hs.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := e.hs.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var c a2a.AgentCard
		json.NewDecoder(res.Body).Decode(&c)
		return res.StatusCode, c
	}
	if code, _ := get("/.well-known/agent-card.json"); code != 401 {
		t.Fatalf("card without the token: %d", code)
	}
	code, root := get("/.well-known/agent-card.json", "Authorization", "Bearer tok")
	in, ok := root.Interface(a2a.BindingJSONRPC)
	if code != 200 || root.Name != "assistant" || !ok || in.URL != e.hs.URL+"/a2a/a1" || root.Capabilities.Streaming == nil || !*root.Capabilities.Streaming {
		t.Fatalf("root card %d %+v", code, root)
	}
	if root.SecuritySchemes["user"].APIKeySecurityScheme == nil || root.SecuritySchemes["bearer"].HTTPAuthSecurityScheme == nil {
		t.Fatalf("schemes %+v", root.SecuritySchemes)
	}
	code, second := get("/a2a/a2/.well-known/agent-card.json", "Authorization", "Bearer tok")
	if in, _ := second.Interface(a2a.BindingJSONRPC); code != 200 || second.Name != "second" || in.URL != e.hs.URL+"/a2a/a2" {
		t.Fatalf("a2 card %d %+v", code, second)
	}
	if code, _ := get("/a2a/nobody/.well-known/agent-card.json", "Authorization", "Bearer tok"); code != 404 {
		t.Fatalf("unknown agent's card: %d", code)
	}
}

// A user's own agent (POST /agent/) has its card and its endpoint for
// that user only.
func TestUserAgent(t *testing.T) {
	e := newEnv(t, []scripted.Turn{scripted.Stream(scripted.Text("Mine."))}, "")
	req, _ := http.NewRequest("POST", e.hs.URL+"/agent/", strings.NewReader(`{"name":"mine","base_agent_id":"a1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-User-ID", user)
	res, err := e.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		AgentID string `json:"agent_id"`
	}
	json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if res.StatusCode != 201 || created.AgentID == "" {
		t.Fatalf("create agent: %d", res.StatusCode)
	}
	card := func(u string) int {
		r, _ := http.NewRequest("GET", e.hs.URL+"/a2a/"+created.AgentID+"/.well-known/agent-card.json", nil)
		if u != "" {
			r.Header.Set("X-User-ID", u)
		}
		res, err := e.hs.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if a, b, c := card(user), card(""), card("mallory"); a != 200 || b != 404 || c != 404 {
		t.Fatalf("card: owner %d, nobody %d, another user %d", a, b, c)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	if r := e.post("/a2a/"+created.AgentID, body); r.task(t).Text("") != "Mine." {
		t.Fatalf("SendMessage to the user's agent: %s", r.body)
	}
	if r := e.post("/a2a/"+created.AgentID, body, "X-User-ID", "mallory"); r.status != 404 || r.code() != a2a.CodeInvalidRequest {
		t.Fatalf("another user's agent: %d %s", r.status, r.body)
	}
}
