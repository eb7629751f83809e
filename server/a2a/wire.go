package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ProtocolVersion is the A2A version this package speaks, as the
// A2A-Version header and an agent card's interfaces name it.
const ProtocolVersion = "1.0"

// BindingJSONRPC is the protocolBinding of the JSON-RPC binding.
const BindingJSONRPC = "JSONRPC"

// Role is who sent a message, as ProtoJSON spells the enum.
type Role string

// The roles.
const (
	RoleUnspecified Role = "ROLE_UNSPECIFIED"
	RoleUser        Role = "ROLE_USER"
	RoleAgent       Role = "ROLE_AGENT"
)

var roleNumbers = []Role{RoleUnspecified, RoleUser, RoleAgent}

// UnmarshalJSON takes the enum's name or, as ProtoJSON parsers must, its
// number.
func (r *Role) UnmarshalJSON(b []byte) error {
	s, err := enumName(b, len(roleNumbers), func(i int) string { return string(roleNumbers[i]) })
	*r = Role(s)
	return err
}

// TaskState is where a task is in its life, as ProtoJSON spells the enum.
type TaskState string

// The task states.
const (
	TaskStateUnspecified   TaskState = "TASK_STATE_UNSPECIFIED"
	TaskStateSubmitted     TaskState = "TASK_STATE_SUBMITTED"
	TaskStateWorking       TaskState = "TASK_STATE_WORKING"
	TaskStateCompleted     TaskState = "TASK_STATE_COMPLETED"
	TaskStateFailed        TaskState = "TASK_STATE_FAILED"
	TaskStateCanceled      TaskState = "TASK_STATE_CANCELED"
	TaskStateInputRequired TaskState = "TASK_STATE_INPUT_REQUIRED"
	TaskStateRejected      TaskState = "TASK_STATE_REJECTED"
	TaskStateAuthRequired  TaskState = "TASK_STATE_AUTH_REQUIRED"
)

var stateNumbers = []TaskState{TaskStateUnspecified, TaskStateSubmitted, TaskStateWorking, TaskStateCompleted,
	TaskStateFailed, TaskStateCanceled, TaskStateInputRequired, TaskStateRejected, TaskStateAuthRequired}

// UnmarshalJSON takes the enum's name or its number.
func (s *TaskState) UnmarshalJSON(b []byte) error {
	v, err := enumName(b, len(stateNumbers), func(i int) string { return string(stateNumbers[i]) })
	*s = TaskState(v)
	return err
}

// Terminal reports whether no message can move the task on: completed,
// failed, canceled or rejected.
func (s TaskState) Terminal() bool {
	switch s {
	case TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected:
		return true
	}
	return false
}

// Interrupted reports whether the task waits for its client: input or
// authentication required.
func (s TaskState) Interrupted() bool {
	return s == TaskStateInputRequired || s == TaskStateAuthRequired
}

// enumName reads a ProtoJSON enum: its name as a string, or its number.
func enumName(b []byte, n int, name func(int) string) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		return s, err
	}
	i, err := strconv.Atoi(string(b))
	if err != nil || i < 0 || i >= n {
		return "", fmt.Errorf("not an enum name or number: %s", b)
	}
	return name(i), nil
}

// Int32 is a ProtoJSON int32: a number, or a number in a string.
type Int32 int32

// UnmarshalJSON takes 10 or "10".
func (n *Int32) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(s)
	}
	v, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("not an int32: %s", b)
	}
	*n = Int32(v)
	return nil
}

// Part is one piece of a message or an artifact: exactly one of Text,
// Raw, URL and Data.
type Part struct {
	// Text is nil when the part is not text ("" is an empty text part).
	Text *string `json:"text,omitempty"`
	// Raw is inline bytes (base64 on the wire).
	Raw []byte `json:"raw,omitempty"`
	// URL points at the content.
	URL string `json:"url,omitempty"`
	// Data is any JSON value.
	Data      json.RawMessage `json:"data,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
}

// TextPart is a text part.
func TextPart(s string) Part { return Part{Text: &s} }

// DataPart is a data part holding v as JSON, with the media type
// application/json.
func DataPart(v any) Part {
	b, _ := json.Marshal(v)
	return Part{Data: b, MediaType: "application/json"}
}

// kinds counts the contents set, which must be one.
func (p *Part) kinds() int {
	n := 0
	if p.Text != nil {
		n++
	}
	if len(p.Raw) > 0 {
		n++
	}
	if p.URL != "" {
		n++
	}
	if len(p.Data) > 0 {
		n++
	}
	return n
}

// Message is one turn of a conversation.
type Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             Role           `json:"role"`
	Parts            []Part         `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
}

// Text is the message's text parts, joined by sep.
func (m *Message) Text(sep string) string { return partsText(m.Parts, sep) }

func partsText(parts []Part, sep string) string {
	var b []byte
	for _, p := range parts {
		if p.Text == nil || *p.Text == "" {
			continue
		}
		if len(b) > 0 {
			b = append(b, sep...)
		}
		b = append(b, *p.Text...)
	}
	return string(b)
}

// TaskStatus is a task's state, with the message that explains it.
type TaskStatus struct {
	State   TaskState `json:"state"`
	Message *Message  `json:"message,omitempty"`
	// Timestamp is ISO 8601 in UTC ("2025-10-28T10:30:00.000Z").
	Timestamp string `json:"timestamp,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []Part         `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extensions  []string       `json:"extensions,omitempty"`
}

// Task is a unit of work an agent does for a message.
type Task struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId,omitempty"`
	Status    TaskStatus     `json:"status"`
	Artifacts []Artifact     `json:"artifacts,omitempty"`
	History   []Message      `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Text is the text of the task's artifacts, joined by sep.
func (t *Task) Text(sep string) string {
	var parts []string
	for _, a := range t.Artifacts {
		if s := partsText(a.Parts, ""); s != "" {
			parts = append(parts, s)
		}
	}
	var b []byte
	for i, s := range parts {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, s...)
	}
	return string(b)
}

// TaskStatusUpdateEvent says a task's state changed.
type TaskStatusUpdateEvent struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TaskArtifactUpdateEvent is a piece of an artifact: with Append, its
// parts add to those the artifact of the same id has so far.
type TaskArtifactUpdateEvent struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  Artifact       `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// StreamResponse is one event of a stream: exactly one field is set.
type StreamResponse struct {
	Task           *Task                    `json:"task,omitempty"`
	Message        *Message                 `json:"message,omitempty"`
	StatusUpdate   *TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
}

// SendMessageResponse is SendMessage's result: a task or a message.
type SendMessageResponse struct {
	Task    *Task    `json:"task,omitempty"`
	Message *Message `json:"message,omitempty"`
}

// SendMessageConfiguration tunes one SendMessage.
type SendMessageConfiguration struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes,omitempty"`
	// HistoryLength bounds the task's history in the answer (nil: all of
	// it; 0: none).
	HistoryLength *Int32 `json:"historyLength,omitempty"`
	// ReturnImmediately answers as soon as the task exists rather than
	// once it completes or asks for input.
	ReturnImmediately bool `json:"returnImmediately,omitempty"`
	// TaskPushNotificationConfig is refused: this server pushes nothing.
	TaskPushNotificationConfig json.RawMessage `json:"taskPushNotificationConfig,omitempty"`
}

// SendMessageRequest is the params of SendMessage and SendStreamingMessage.
type SendMessageRequest struct {
	Tenant        string                    `json:"tenant,omitempty"`
	Message       *Message                  `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any            `json:"metadata,omitempty"`
}

// GetTaskRequest is the params of GetTask.
type GetTaskRequest struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            string `json:"id"`
	HistoryLength *Int32 `json:"historyLength,omitempty"`
}

// CancelTaskRequest is the params of CancelTask.
type CancelTaskRequest struct {
	Tenant   string         `json:"tenant,omitempty"`
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// SubscribeToTaskRequest is the params of SubscribeToTask.
type SubscribeToTaskRequest struct {
	Tenant string `json:"tenant,omitempty"`
	ID     string `json:"id"`
}

// AgentCard describes an agent: who it is, where and how to reach it.
type AgentCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	SupportedInterfaces  []AgentInterface          `json:"supportedInterfaces"`
	Provider             *AgentProvider            `json:"provider,omitempty"`
	Version              string                    `json:"version"`
	DocumentationURL     string                    `json:"documentationUrl,omitempty"`
	Capabilities         AgentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []SecurityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []AgentSkill              `json:"skills"`
	IconURL              string                    `json:"iconUrl,omitempty"`
}

// Interface is the card's first interface of binding at version 1.0, or
// false when it has none.
func (c *AgentCard) Interface(binding string) (AgentInterface, bool) {
	for _, in := range c.SupportedInterfaces {
		if in.ProtocolBinding == binding && majorMinor(in.ProtocolVersion) == ProtocolVersion {
			return in, true
		}
	}
	return AgentInterface{}, false
}

// AgentInterface is one way to reach an agent.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	Tenant          string `json:"tenant,omitempty"`
	ProtocolVersion string `json:"protocolVersion"`
}

// AgentProvider is who runs an agent.
type AgentProvider struct {
	URL          string `json:"url"`
	Organization string `json:"organization"`
}

// AgentCapabilities are the optional parts of the protocol an agent
// serves.
type AgentCapabilities struct {
	Streaming         *bool            `json:"streaming,omitempty"`
	PushNotifications *bool            `json:"pushNotifications,omitempty"`
	Extensions        []AgentExtension `json:"extensions,omitempty"`
	ExtendedAgentCard *bool            `json:"extendedAgentCard,omitempty"`
}

// AgentExtension is an extension an agent supports.
type AgentExtension struct {
	URI         string         `json:"uri,omitempty"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
}

// AgentSkill is something an agent can do.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
}

// SecurityScheme is one way an agent authenticates its clients: the one
// field set names it. Only the two this server uses are typed.
type SecurityScheme struct {
	APIKeySecurityScheme   *APIKeySecurityScheme   `json:"apiKeySecurityScheme,omitempty"`
	HTTPAuthSecurityScheme *HTTPAuthSecurityScheme `json:"httpAuthSecurityScheme,omitempty"`
}

// APIKeySecurityScheme is a key sent in a header, query parameter or
// cookie (Location).
type APIKeySecurityScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// HTTPAuthSecurityScheme is HTTP authentication, such as Bearer.
type HTTPAuthSecurityScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// SecurityRequirement names the schemes a request must satisfy together.
type SecurityRequirement struct {
	Schemes map[string]StringList `json:"schemes"`
}

// StringList is a list of strings (a scheme's scopes).
type StringList struct {
	List []string `json:"list"`
}

// majorMinor is a version's "major.minor" (a patch never matters).
func majorMinor(v string) string {
	major, rest, _ := cutDot(v)
	minor, _, _ := cutDot(rest)
	if minor == "" {
		minor = "0"
	}
	return major + "." + minor
}

func cutDot(s string) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// JSON-RPC 2.0 error codes: the standard ones and A2A's.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodeTaskNotFound                 = -32001
	CodeTaskNotCancelable            = -32002
	CodePushNotificationNotSupported = -32003
	CodeUnsupportedOperation         = -32004
	CodeContentTypeNotSupported      = -32005
	CodeInvalidAgentResponse         = -32006
	CodeExtendedCardNotConfigured    = -32007
	CodeExtensionSupportRequired     = -32008
	CodeVersionNotSupported          = -32009

	// CodeUnauthenticated is this server's code for a request without
	// the bearer token or the X-User-ID header it requires (HTTP 401):
	// the one code of JSON-RPC's implementation-defined range that A2A
	// leaves free.
	CodeUnauthenticated = -32000
)

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("A2A error %d: %s", e.Code, e.Message) }

// Is reports whether target is an *Error with the same code, so
// errors.Is(err, &a2a.Error{Code: a2a.CodeTaskNotFound}) tests a kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Request is a JSON-RPC request.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response is a JSON-RPC response: Result or Error.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}
