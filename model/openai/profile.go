package openai

// ReasoningEcho says whether assistant thinking is sent back in history as
// the message's "reasoning_content".
type ReasoningEcho uint8

const (
	// EchoNever drops thinking from history (OpenAI rejects it).
	EchoNever ReasoningEcho = iota
	// EchoIfPresent sends reasoning_content on assistant messages that hold
	// thinking (llama.cpp and vLLM templates use it; DashScope when the
	// model is a thinking model).
	EchoIfPresent
	// EchoAlways sends reasoning_content on every assistant message, ""
	// when it has none: DeepSeek and Moonshot thinking modes reject history
	// without it.
	EchoAlways
)

// ThinkingStyle says how a profile switches a model's thinking on or off.
type ThinkingStyle uint8

const (
	// ThinkingNone has no switch; only reasoning_effort is sent.
	ThinkingNone ThinkingStyle = iota
	// ThinkingType sends "thinking":{"type":"enabled"|"disabled"}
	// (DeepSeek, Moonshot).
	ThinkingType
	// ThinkingEnable sends "enable_thinking":bool and "thinking_budget"
	// (DashScope).
	ThinkingEnable
	// ThinkingTemplate sends "chat_template_kwargs":{"enable_thinking":bool}
	// (vLLM, SGLang and llama.cpp serving Qwen3-style templates).
	ThinkingTemplate
)

// Profile describes how one OpenAI-compatible provider differs from OpenAI
// on the Chat Completions wire. The zero value behaves like a generic
// compatible server.
type Profile struct {
	// Name is the provider name used in errors and logs.
	Name string
	// BaseURL is the default API root (the path before /chat/completions).
	BaseURL string
	// MaxTokensField is the request key for the output token limit:
	// "max_completion_tokens" (OpenAI) or "max_tokens" (everyone else).
	MaxTokensField string
	// Echo is the reasoning echo rule for assistant history.
	Echo ReasoningEcho
	// StringContent sends every message's content as one string (text
	// parts joined with "\n", media replaced by a note), for servers that
	// reject content-part lists (DeepSeek).
	StringContent bool
	// SendNames sends Msg.Name as "name" (when it matches OpenAI's
	// ^[a-zA-Z0-9_-]+$; other names are omitted rather than mangled).
	SendNames bool
	// NoRequiredChoice downgrades tool_choice "required" to "auto"
	// (DashScope has no "required").
	NoRequiredChoice bool
	// Thinking is how the thinking switch is sent.
	Thinking ThinkingStyle
	// InlineImageURLs downloads remote image URLs and sends them as data
	// URLs (Moonshot rejects remote URLs).
	InlineImageURLs bool
	// AudioDataURL sends input_audio data as "data:;base64,…" or as the
	// source URL (DashScope) instead of bare base64 (OpenAI).
	AudioDataURL bool
	// OutputExcludesReasoning adds completion_tokens_details.
	// reasoning_tokens to completion_tokens for the output count (xAI's
	// completion_tokens leave reasoning out; OpenAI's include it).
	OutputExcludesReasoning bool
	// InputTypes are the media types (globs like "image/*") the model
	// accepts in user content and promoted tool results.
	InputTypes []string
	// ContextSize is the context window in tokens the agent assumes for
	// the provider's models, the reference's default for it (0: the Chat
	// class's 128,000; a Responses model's is always 200,000).
	ContextSize int
}

// The built-in profiles.
var (
	// ProfileOpenAI is api.openai.com.
	ProfileOpenAI = Profile{
		Name: "openai", BaseURL: "https://api.openai.com/v1",
		MaxTokensField: "max_completion_tokens", Echo: EchoNever, SendNames: true,
		InputTypes: []string{"image/*", "audio/wav", "audio/mp3", "audio/mpeg", "application/pdf"},
	}
	// ProfileCompatible is a generic OpenAI-compatible server: vLLM,
	// llama.cpp, LM Studio, SGLang, Ollama's /v1. Thinking is echoed when
	// present because their chat templates (gpt-oss, Qwen3) expect it.
	ProfileCompatible = Profile{
		Name: "openai-compatible", BaseURL: "http://localhost:8000/v1",
		MaxTokensField: "max_tokens", Echo: EchoIfPresent, Thinking: ThinkingTemplate,
		InputTypes: []string{"image/*"},
	}
	// ProfileDeepSeek is api.deepseek.com.
	ProfileDeepSeek = Profile{
		Name: "deepseek", BaseURL: "https://api.deepseek.com",
		MaxTokensField: "max_tokens", Echo: EchoAlways, StringContent: true, Thinking: ThinkingType,
		ContextSize: 65536,
	}
	// ProfileMoonshot is Moonshot's Kimi API.
	ProfileMoonshot = Profile{
		Name: "moonshot", BaseURL: "https://api.moonshot.cn/v1",
		MaxTokensField: "max_tokens", Echo: EchoAlways, SendNames: true, Thinking: ThinkingType,
		InlineImageURLs: true, InputTypes: []string{"image/*"}, ContextSize: 131072,
	}
	// ProfileDashScope is Alibaba DashScope's compatible mode. Thinking is
	// echoed only when asked for (WithReasoningEcho), as the reference does
	// for models whose card lists application/x-thinking.
	ProfileDashScope = Profile{
		Name: "dashscope", BaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1",
		MaxTokensField: "max_tokens", Echo: EchoNever, NoRequiredChoice: true, Thinking: ThinkingEnable,
		AudioDataURL: true, InputTypes: []string{"image/*", "audio/*", "video/*"}, ContextSize: 131072,
	}
	// ProfileXAI is xAI's REST API (the reference's gRPC SDK is not needed:
	// the Chat wire carries the same content).
	ProfileXAI = Profile{
		Name: "xai", BaseURL: "https://api.x.ai/v1",
		MaxTokensField: "max_tokens", Echo: EchoNever, OutputExcludesReasoning: true,
		InputTypes: []string{"image/jpeg", "image/png"}, ContextSize: 131072,
	}
	// ProfileOllama is Ollama's OpenAI-compatible /v1 endpoint (the native
	// /api/chat wire is model/ollama).
	ProfileOllama = Profile{
		Name: "ollama", BaseURL: "http://localhost:11434/v1",
		MaxTokensField: "max_tokens", Echo: EchoNever,
		InputTypes: []string{"image/*"}, ContextSize: 32768,
	}
)

func (p *Profile) name() string {
	if p.Name == "" {
		return "openai-compatible"
	}
	return p.Name
}

func (p *Profile) maxTokensField() string {
	if p.MaxTokensField == "" {
		return "max_tokens"
	}
	return p.MaxTokensField
}
