package pycompat

import "strconv"

// Texts of the reply loop (core-spec Appendix A; _agent.py and
// agent/_config.py).
const (
	// ParkText ends a reply that waits for a confirmation or an external
	// result (_agent.py:3293-3294).
	ParkText = "I'm waiting for your permission or the external execution to finish."
	// StructuredDoneText ends a reply whose structured output was
	// generated (_agent.py:3319).
	StructuredDoneText = "The required structured output is generated."
	// MaxItersText ends a reply that ran out of iterations
	// (_agent.py:3364-3365, :3446-3447).
	MaxItersText = "The maximum reasoning-acting iterations are exceeded."
	// InterruptionMessage is the default text of the fallback message that
	// ends an interrupted reply (agent/_config.py:330-334).
	InterruptionMessage = "I notice the interruption. How can I help you?"
	// InterruptedToolText is the result of a tool call cut short by an
	// interruption (_agent.py:874-877; tool/_toolkit.py:371-381).
	InterruptedToolText = "<system-reminder>The tool call has been interrupted by the user.</system-reminder>"
	// StructuredSource is the source of the structured-output reminder
	// hint (_agent.py:3395-3396).
	StructuredSource = `{"label": "System", "sublabel": "Structured Output Requirement"}`
	// InjectionTemplate is the default runtime-state reminder; the loop
	// substitutes {runtime_state} (agent/_config.py:223-237).
	InjectionTemplate = "<system-reminder>Treat the following as the ground truth at this point of the conversation. Anything stated earlier is outdated, and a later reminder, if any, supersedes this one:\n{runtime_state}\n</system-reminder>"
	// InjectionSource is the source of the runtime-state hint
	// (agent/_config.py:250-257).
	InjectionSource = `{"label": "System", "sublabel": "Runtime State"}`
)

const (
	structuredReminder = "<system-reminder>You're required to generate structured output by calling the 'GenerateStructuredOutput' tool. "
	structuredNormal   = "Call it when you are ready to generate the final structured output."
	structuredForced   = "You have reached the maximum reasoning-acting iterations, so call this tool at once to generate the final structured output."
)

// StructuredReminder is the hint before every reasoning step of a reply
// that owes a structured output; forced is the wording once max_iters is
// reached and the tool choice is forced (_agent.py:3330-3397, §3.3).
func StructuredReminder(forced bool) string {
	if forced {
		return structuredReminder + structuredForced + "</system-reminder>"
	}
	return structuredReminder + structuredNormal + "</system-reminder>"
}

// DeniedText is the result the model sees for a call the user rejected
// (_agent.py:1803-1807).
func DeniedText(toolName string) string {
	return `<system-reminder>The execution of tool "` + toolName + `" is denied by user!</system-reminder>`
}

// TasksReminder is the runtime-state line about open tasks.
func TasksReminder(inProgress, pending int) string {
	return "You have " + strconv.Itoa(inProgress) + " in-progress tasks and " + strconv.Itoa(pending) +
		" pending tasks. Use `TaskList` to view them if you don't know."
}
