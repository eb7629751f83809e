package api_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentscope-go/agentscope/server/api"
)

// The records are written with the reference's keys, in its order, with
// its nulls; the config's other keys follow, and read back the same.
func TestSessionRecordShape(t *testing.T) {
	rec := api.SessionRecord{ID: "s1", UpdatedAt: "u", CreatedAt: "c", UserID: "alice", AgentID: "a1",
		Config: api.NewSessionConfig("notes", json.RawMessage(`{"zeta":1,"chat_model_config":{"model":"m"},"alpha":"x","name":"ignored"}`))}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"s1","updated_at":"u","created_at":"c","user_id":"alice","agent_id":"a1","source":null,` +
		`"source_schedule_id":null,"source_chat_id":null,"source_channel_id":null,"team_id":null,` +
		`"config":{"workspace_id":null,"name":"notes","cwd":null,"chat_model_config":{"model":"m"},` +
		`"fallback_chat_model_config":null,"tts_model_config":null,"knowledge_config":null,"alpha":"x","zeta":1},"state":null}`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	var back api.SessionRecord
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if string(again) != want {
		t.Fatalf("round trip\n%s", again)
	}
	if chat, _ := json.Marshal(api.ChatStarted{Status: "started", SessionID: "s1"}); string(chat) != `{"status":"started","session_id":"s1"}` {
		t.Fatalf("chat answer %s", chat)
	}
}

func TestAgentRecordShape(t *testing.T) {
	b, _ := json.Marshal(api.AgentRecord{ID: "a1", Source: "server", Data: api.AgentData{ID: "a1", Name: "assistant", Description: "d"}})
	const want = `{"id":"a1","updated_at":null,"created_at":null,"user_id":null,"source":"server",` +
		`"data":{"id":"a1","name":"assistant","description":"d","system_prompt":null,"context_config":null,"react_config":null,"invite_config":null}}`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

// A session's stored settings and name, as the reference's config.
func ExampleNewSessionConfig() {
	c := api.NewSessionConfig("notes", json.RawMessage(`{"cwd":"/srv","permission_mode":"explore"}`))
	b, _ := json.Marshal(c)
	fmt.Println(string(b))
	// Output:
	// {"workspace_id":null,"name":"notes","cwd":"/srv","chat_model_config":null,"fallback_chat_model_config":null,"tts_model_config":null,"knowledge_config":null,"permission_mode":"explore"}
}
