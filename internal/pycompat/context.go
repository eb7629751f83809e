package pycompat

import (
	"errors"
	"strconv"
	"strings"
)

// Texts of the long-context handling: tool-result truncation (§3.9), image
// eviction and context compression (§3.11b), the context-length field of
// the runtime state (§3.8); agent/_config.py and _agent.py.
const (
	// CompressionPrompt is the default instruction closing the summary
	// request. Its {current_time} is literal: the reference never
	// substitutes it (agent/_config.py:66-99).
	CompressionPrompt = "<system-hint>You have been working on the task described above but have not yet completed it. Now write a continuation summary that will allow you to resume work efficiently in a future context window where the conversation history will be replaced with this summary. Your summary should be structured, concise, and actionable.\n" +
		"The current time is {current_time}.\n" +
		"This summary may itself be summarized again later, and the conversation history it refers to will be gone, so every reference must be self-contained \u2014 resolve anything that depends on the vanished context into an absolute, fully-qualified form:\n" +
		"- Time: convert relative expressions ('today', 'now', 'yesterday', 'tomorrow', 'recently') to absolute dates using the current time above; re-anchor them even if an earlier summary already wrote them relatively.\n" +
		"- Names & pointers: use file paths, symbol names, PR/issue numbers, IDs, URLs, and exact commands/error strings verbatim instead of 'this file', 'the above', 'the second approach', 'the 5 failing tests'.\n" +
		"- In-flight work: record everything still pending, especially tools launched in the background whose results you are still waiting on \u2014 give each one's id and a short note of what it is doing \u2014 and mark each item's owner (user request vs your own decision) and status (done / pending / blocked).\n" +
		"</system-hint>"
	// SummaryTemplate presents the structured summary; str.format fills
	// it with the summary's fields (agent/_config.py:104-120).
	SummaryTemplate = "<system-info>Here is a summary of your previous work\n# Task Overview\n{task_overview}\n\n# Current State\n{current_state}\n\n# Important Discoveries\n{important_discoveries}\n\n# Next Steps\n{next_steps}\n\n# Context to Preserve\n{context_to_preserve}</system-info>"
	// SummarySchema is pydantic's model_json_schema() of SummarySchema,
	// compact (agent/_config.py:9-48).
	SummarySchema = `{"description":"The compressed memory model, used to generate summary of old memories","properties":{"task_overview":{"description":"The user's core request and success criteria.\nAny clarifications or constraints they specified","title":"Task Overview","type":"string"},"current_state":{"description":"What has been completed so far.\nFile created, modified, or analyzed (with paths if relevant).\nKey outputs or artifacts produced.","title":"Current State","type":"string"},"important_discoveries":{"description":"Technical constraints or requirements uncovered.\nDecisions made and their rationale.\nErrors encountered and how they were resolved.\nWhat approaches were tried that didn't work (and why)","title":"Important Discoveries","type":"string"},"next_steps":{"description":"Specific actions needed to complete the task.\nAny blockers or open questions to resolve.\nPriority order if multiple steps remain","title":"Next Steps","type":"string"},"context_to_preserve":{"description":"User preferences or style requirements.\nDomain-specific details that aren't obvious.\nAny promises made to the user","title":"Context To Preserve","type":"string"}},"required":["task_overview","current_state","important_discoveries","next_steps","context_to_preserve"],"title":"SummarySchema","type":"object"}`
	// CompressionFallbackSummary replaces a summary that could not be
	// generated when there was none before (_agent.py:621-625).
	CompressionFallbackSummary = "<system-info>Some earlier messages were truncated for limited context.</system-info>"
	// StructuredOutputFunc names the tool a structured-output request
	// offers (model/_base.py:626-661).
	StructuredOutputFunc = "generate_structured_output"
	// StructuredOutputFuncDescription describes it.
	StructuredOutputFuncDescription = "Call this function to generate structured output required by the user."
	// StructuredOutputInstruction is appended to the request's last user
	// message (or sent as one) (model/_base.py:632-648).
	StructuredOutputInstruction = "<system-reminder>Now you **MUST** call the tool named 'generate_structured_output' to generate the structured output required by the user. DON'T do anything else.</system-reminder>"
)

// TruncationReminder is appended to a tool result cut at the
// tool-result limit; path, when not "", is where an offloader saved the
// rest (_agent.py:2456-2477).
func TruncationReminder(path string) string {
	s := "\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context."
	if path != "" {
		s += " You can refer to the file in '" + path + "' for the truncated content if needed."
	}
	return s + "</system-reminder>"
}

// ContextOffloadReminder follows the summary when the compressed messages
// were offloaded (_agent.py:627-653).
func ContextOffloadReminder(path string) string {
	return "<system-reminder>The compressed context is offloaded to '" + path + "', you can refer to it when needed.</system-reminder>"
}

// ImageEvicted replaces an image beyond max_image_num: url is where it can
// be found ("" when it was dropped), name its file name ("" for none)
// (_agent.py:747-762).
func ImageEvicted(name, url string) string {
	named := ""
	if name != "" {
		named = "named '" + name + "' "
	}
	if url != "" {
		return "<system-reminder>The image " + named + "is offloaded into " + url + ", you can refer to it when needed.</system-reminder>"
	}
	return "<system-reminder>The image " + named + "is removed to free up context space.</system-reminder>"
}

// ContextLength is the runtime-state line about the context's size
// (_agent.py:1406-1410).
func ContextLength(tokens, triggerTokens int) string {
	return "Your current context contains " + strconv.Itoa(tokens) + " tokens. When reaching " +
		strconv.Itoa(triggerTokens) + " tokens, your context will be compressed."
}

// CompressionThresholdError is the message of the error raised when the
// system prompt (and the summary) alone exceed the compression threshold
// (_agent.py:449-460). threshold is Python's float repr of it.
func CompressionThresholdError(withSummary bool, threshold string) string {
	suffix := ""
	if withSummary {
		suffix = "and the compression summary "
	}
	return "The system prompt " + suffix + "exceed(s) the compression threshold (" + threshold + " tokens), cannot be compressed."
}

// ErrFormatKey is wrapped by Format for a field the values lack (Python's
// KeyError).
var ErrFormatKey = errors.New("KeyError")

// Format is Python's str.format(**values) for templates of plain named
// fields: {name} is replaced, {{ and }} are literal braces. Format specs,
// conversions and positional fields are not supported (a field name is
// taken verbatim up to its closing brace).
func Format(template string, values map[string]string) (string, error) {
	var b strings.Builder
	b.Grow(len(template))
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch {
		case c == '{' && i+1 < len(template) && template[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(template) && template[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(template[i:], '}')
			if end < 0 {
				return "", errors.New("ValueError: expected '}' before end of string")
			}
			key := template[i+1 : i+end]
			v, ok := values[key]
			if !ok {
				return "", &formatKeyError{key}
			}
			b.WriteString(v)
			i += end
		case c == '}':
			return "", errors.New("ValueError: Single '}' encountered in format string")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

type formatKeyError struct{ key string }

func (e *formatKeyError) Error() string { return "KeyError: '" + e.key + "'" }
func (e *formatKeyError) Unwrap() error { return ErrFormatKey }
