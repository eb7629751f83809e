// Package provider selects a chat model from a URI such as
// "openai:gpt-4.1", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash",
// "ollama:qwen3" or "openai-compatible:qwen3@http://localhost:8000/v1", and
// reads the provider's API key from its usual environment variable.
//
// It is the one place that looks at the environment: the adapters
// themselves (model/openai, model/anthropic, …) take keys and base URLs
// only as options, so tests and embedders never pick up a stray
// OPENAI_BASE_URL.
//
// Schemes are a registry (Register) so an application can add its own or
// replace a built-in. The built-ins:
//
//	openai             Chat Completions          OPENAI_API_KEY
//	openai-responses   Responses API             OPENAI_API_KEY
//	openai-compatible  any /v1 server (base URL required; key optional: OPENAI_COMPATIBLE_API_KEY)
//	vllm, llamacpp, lmstudio, ollama-openai
//	                   local /v1 servers on their default ports (key optional)
//	deepseek           DEEPSEEK_API_KEY
//	moonshot, kimi     MOONSHOT_API_KEY
//	dashscope, qwen    DASHSCOPE_API_KEY
//	xai, grok          XAI_API_KEY
//	anthropic          ANTHROPIC_API_KEY
//	gemini             GOOGLE_API_KEY or GEMINI_API_KEY (the former wins, as in google-genai)
//	ollama             native /api/chat (OLLAMA_HOST, default http://localhost:11434)
//
// A base URL may follow the model after '@' (it must be http or https), and
// WithBaseURL (the CLI's --base-url) overrides both that and the default.
package provider
