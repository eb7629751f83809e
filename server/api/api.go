package api

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Time is the layout of the records' timestamps (the reference's
// isoformat, microseconds, no zone: UTC).
const Time = "2006-01-02T15:04:05.000000"

// SessionRecord is a session as the reference's service writes it:
// every key it has, null where this server has nothing to say.
type SessionRecord struct {
	ID        string  `json:"id"`
	UpdatedAt string  `json:"updated_at"`
	CreatedAt string  `json:"created_at"`
	UserID    string  `json:"user_id"`
	AgentID   string  `json:"agent_id"`
	Source    *string `json:"source"`
	// SourceScheduleID, SourceChatID, SourceChannelID and TeamID are the
	// reference's links to schedules, chat channels and teams; this
	// server has none (null).
	SourceScheduleID *string       `json:"source_schedule_id"`
	SourceChatID     *string       `json:"source_chat_id"`
	SourceChannelID  *string       `json:"source_channel_id"`
	TeamID           *string       `json:"team_id"`
	Config           SessionConfig `json:"config"`
	// State is the session's AgentState as stored; null in lists, which
	// read no state.
	State json.RawMessage `json:"state"`
}

// SessionConfig is a session's settings: the reference's keys first, in
// its order, null where unset, then any other key the client gave when it
// created or patched the session.
type SessionConfig struct {
	WorkspaceID             json.RawMessage
	Name                    *string
	Cwd                     json.RawMessage
	ChatModelConfig         json.RawMessage
	FallbackChatModelConfig json.RawMessage
	TTSModelConfig          json.RawMessage
	KnowledgeConfig         json.RawMessage
	// Extra are the other keys, written after the reference's in the
	// order of their names.
	Extra map[string]json.RawMessage
}

// ConfigKeys are the reference's session config keys, in its order.
var ConfigKeys = []string{"workspace_id", "name", "cwd", "chat_model_config", "fallback_chat_model_config", "tts_model_config", "knowledge_config"}

// NewSessionConfig sorts a session's stored settings (a JSON object, or
// nil) and name into a SessionConfig.
func NewSessionConfig(name string, stored json.RawMessage) SessionConfig {
	var c SessionConfig
	if name != "" {
		c.Name = &name
	}
	var fields map[string]json.RawMessage
	if len(stored) > 0 {
		_ = json.Unmarshal(stored, &fields)
	}
	for k, v := range fields {
		switch k {
		case "workspace_id":
			c.WorkspaceID = v
		case "cwd":
			c.Cwd = v
		case "chat_model_config":
			c.ChatModelConfig = v
		case "fallback_chat_model_config":
			c.FallbackChatModelConfig = v
		case "tts_model_config":
			c.TTSModelConfig = v
		case "knowledge_config":
			c.KnowledgeConfig = v
		case "name":
			// The record's own name wins: it is what PATCH changes.
		default:
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
	}
	return c
}

// MarshalJSON writes the reference's keys in order, null where unset,
// then the others.
func (c SessionConfig) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(k string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if len(bytes.TrimSpace(v)) == 0 {
			v = json.RawMessage("null")
		}
		b.Write(v)
	}
	var name json.RawMessage
	if c.Name != nil {
		name, _ = json.Marshal(*c.Name)
	}
	for i, v := range []json.RawMessage{c.WorkspaceID, name, c.Cwd, c.ChatModelConfig, c.FallbackChatModelConfig, c.TTSModelConfig, c.KnowledgeConfig} {
		field(ConfigKeys[i], v)
	}
	keys := make([]string, 0, len(c.Extra))
	for k := range c.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(k, c.Extra[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the reference's keys and keeps the others in Extra.
func (c *SessionConfig) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	var name string
	if raw, ok := fields["name"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &name); err != nil {
			return err
		}
	}
	delete(fields, "name")
	stored, _ := json.Marshal(fields)
	*c = NewSessionConfig(name, stored)
	return nil
}

// SessionEntry is one session of GET /sessions/.
type SessionEntry struct {
	Session   SessionRecord `json:"session"`
	IsRunning bool          `json:"is_running"`
	Status    string        `json:"status"`
	Team      any           `json:"team"`
}

// SessionList is GET /sessions/. NextCursor is not in the reference:
// the cursor of the next page of a paged listing (?limit=), absent on the
// last page and on a listing of everything, so an unpaged answer is the
// reference's exactly.
type SessionList struct {
	Sessions   []SessionEntry `json:"sessions"`
	Total      int            `json:"total"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

// Created is POST /sessions/'s answer.
type Created struct {
	SessionID string `json:"session_id"`
}

// ChatRequest is POST /chat/'s body. Input is a user Msg, a list of
// them, a USER_CONFIRM_RESULT or an EXTERNAL_EXECUTION_RESULT event.
type ChatRequest struct {
	AgentID   string          `json:"agent_id"`
	SessionID string          `json:"session_id"`
	Input     json.RawMessage `json:"input"`
}

// ChatStarted is POST /chat/'s answer, keys in the reference's order.
type ChatStarted struct {
	Status    string `json:"status"`
	SessionID string `json:"session_id"`
}

// Status is GET /sessions/{id}/status: running, idle,
// awaiting_permission or awaiting_external_result.
type Status struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
}

// Messages is GET /sessions/{id}/messages: a page of the transcript,
// oldest first.
type Messages struct {
	Messages  []json.RawMessage `json:"messages"`
	IsRunning bool              `json:"is_running"`
	HasMore   bool              `json:"has_more"`
}

// Accepted is POST /sessions/{id}/interrupt's answer.
type Accepted struct {
	SessionID string `json:"session_id"`
}

// AgentRecord is an agent as the reference's service writes it: its
// record, and its settings in Data.
type AgentRecord struct {
	ID        string  `json:"id"`
	UpdatedAt *string `json:"updated_at"`
	CreatedAt *string `json:"created_at"`
	UserID    *string `json:"user_id"`
	// Source is "server" for an agent the server is configured with
	// (read-only), "user" for one a user created over POST /agent/.
	Source string    `json:"source"`
	Data   AgentData `json:"data"`
}

// AgentData is an agent's settings: the reference's AgentData keys, null
// where this server has none, and what this server adds (description,
// base_agent_id).
type AgentData struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	SystemPrompt  *string         `json:"system_prompt"`
	ContextConfig json.RawMessage `json:"context_config"`
	ReactConfig   *ReactConfig    `json:"react_config"`
	InviteConfig  json.RawMessage `json:"invite_config"`
	// BaseAgentID is the configured agent a user's agent is built on ("":
	// none, for a configured agent).
	BaseAgentID string `json:"base_agent_id,omitempty"`
}

// ReactConfig is an agent's loop settings.
type ReactConfig struct {
	MaxIters *int `json:"max_iters"`
}

// AgentList is GET /agent/.
type AgentList struct {
	Agents []AgentRecord `json:"agents"`
	Total  int           `json:"total"`
}

// AgentTools is GET /agent/{id}/tools: the agent's tools as its model is
// sent them.
type AgentTools struct {
	Tools []ToolSchema `json:"tools"`
}

// ToolSchema is one tool: its name, description and the JSON Schema of
// its input.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// AgentCreated is POST /agent/'s answer.
type AgentCreated struct {
	AgentID string `json:"agent_id"`
}

// Health is GET /health.
type Health struct {
	Status     string            `json:"status"`
	Version    string            `json:"version"`
	Components map[string]string `json:"components"`
}

// Error is a 4xx or 5xx answer: Detail is a string, or FastAPI's list of
// validation items.
type Error struct {
	Detail json.RawMessage `json:"detail"`
}

// ValidationItem is one entry of a 422's detail list, in FastAPI's shape.
type ValidationItem struct {
	Type string `json:"type"`
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
}
