package pycompat

import (
	"strings"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/internal/pycompat/pyjson"
)

// Results of calls the toolkit could not run (core-spec Appendix A;
// tool/_toolkit.py and _agent.py).

// ToolNotFound: no group holds a tool of that name (tool/_toolkit.py:591-594).
func ToolNotFound(name string) string {
	return "ToolNotFoundError: The tool named '" + name + "' doesn't exist."
}

// ToolGroupInactive: the tool's group is not activated (tool/_toolkit.py:584-590).
func ToolGroupInactive(name, group string) string {
	return "ToolGroupInactiveError: The tool '" + name + "' in group '" + group +
		"' is currently inactive. You should first activate the group by calling the 'reset_tools' tool."
}

// InputValidationFailed quotes a jsonschema message (_agent.py:2306-2309).
func InputValidationFailed(toolName, message string) string {
	return "Input validation failed for tool '" + toolName + "': " + message
}

// The first line of [BadArguments] for each way argument text fails
// (_utils/_common.py:115-164).
const ArgumentsNotFinite = "Error: NaN and Infinity are not valid JSON numbers."

// ArgumentsNotObject: the text decodes to a value of Python type typeName
// ("list", "str", …) instead of a dict.
func ArgumentsNotObject(typeName string) string {
	return "Error: Your argument string is decoded into a <class '" + typeName +
		"'> object, but a dict object is expected!"
}

// ArgumentsNotJSON: json.loads failed with message.
func ArgumentsNotJSON(message string) string {
	return "Error: When decoding your tool arguments from JSON format to a Python dictionary, " +
		"a JSONDecodeError was raised with message: " + message + "."
}

// BadArguments is the reference's ToolJSONDecodeError text: problem (one
// of the Arguments… lines), then the argument text quoted as a Python
// literal; inputs longer than 200 characters are shown as the first 100,
// "[TRUNCATE]", the last 100 (_utils/_common.py:115-164).
func BadArguments(problem, input string) string {
	shown, hint := input, ""
	if utf8.RuneCountInString(shown) > 200 {
		r := []rune(shown)
		shown = string(r[:100]) + "[TRUNCATE]" + string(r[len(r)-100:])
		hint = `(Because the JSON string is too long, a truncated label "[TRUNCATE]" is used here to indicate the truncation)`
	}
	var b strings.Builder
	b.WriteString("<system-reminder>")
	b.WriteString(problem)
	b.WriteString("\n\nYour argument string is decoded by the following code snippet")
	b.WriteString(hint)
	b.WriteString(":\n```python\nimport json\n\nyour_tool_arguments = ")
	b.WriteString(pyjson.StrRepr(shown))
	b.WriteString("\njson.loads(your_tool_arguments)\n```\n\n**You should recorrect the arguments in JSON format.**</system-reminder>")
	return b.String()
}

// The structured-output tool (agent/_structured_output_tool.py:103-165).
const (
	StructuredOutputName        = "GenerateStructuredOutput"
	StructuredOutputDone        = "Structured output generated successfully."
	StructuredOutputNotRequired = "No structured output is required for now."
	StructuredOutputDescription = "Generate the required structured output by this tool.\n\n" +
		"This tool is equipped only when you're required to generate structured output.\n" +
		"The input schema represents the required structured output.\n" +
		"When you are ready to generate a structured output, call this tool with the\n" +
		"structured output as input.\n" +
		"When you're equipped this tool, you MUST end your response with calling this\n" +
		"tool. Once this tool is called, your current response is finished and the\n" +
		"structured output is sent to the user.\n\n" +
		"# When to Use This Tool\n" +
		"- When you collect enough resources and information.\n"
)

// StructuredOutputFailed is the structured-output tool's result for an
// output that fails its schema.
func StructuredOutputFailed(details string) string {
	return "ValidationError: Structured output validation failed with error: " + details
}

// The meta tool that switches tool groups (tool/_toolkit.py).
const (
	MetaToolName        = "reset_tools"
	MetaToolDescription = "This tool allows you to reset your equipped tools based on your current task requirements. " +
		"These tools are organized into different groups, and you can activate/deactivate them by specifying the boolean " +
		"values for each group in the input.\n\n**Important: The input booleans are the final state of their corresponding " +
		"tool groups, not incremental changes.** Any group not explicitly set to True will be deactivated, regardless of " +
		"its previous state.\n\n**Best practice**: Actively manage your tool groups——activate only what you need for the " +
		"current task, and promptly deactivate groups as soon as they are no longer needed to conserve context space.\n\n" +
		"This tool will return the usage instructions for the activated tool groups, which you **MUST pay attention to " +
		"and follow**. You can also reuse this tool to re-check the instructions."
	MetaToolNoState         = "Error: ResetTools requires state to be provided."
	MetaToolAllowed         = "The meta tool is always allowed to be called."
	MetaToolAllOff          = "All tool groups are currently deactivated."
	metaToolInstructions    = "\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n"
	metaToolInstructionsEnd = "\n</tool-instructions>"
)

// MetaToolNotBool: a reset_tools argument is not a boolean; typeName is
// its Python type.
func MetaToolNotBool(arg, typeName string) string {
	return "Invalid arguments: the argument " + arg + " should be a bool value, but got <class '" + typeName + "'>."
}

// MetaToolUnknownGroups: reset_tools named groups that do not exist.
func MetaToolUnknownGroups(unknown, available []string) string {
	return "Invalid group name(s): " + strings.Join(unknown, ", ") +
		". Available tool groups: " + strings.Join(available, ", ") + "."
}

// GroupInstructions is one activated group's usage instructions.
type GroupInstructions struct{ Name, Instructions string }

// MetaToolActivated is reset_tools' result: the activated groups, then the
// instructions of those that have any (the reference's default response
// template).
func MetaToolActivated(groups []GroupInstructions) string {
	if len(groups) == 0 {
		return MetaToolAllOff
	}
	var b strings.Builder
	b.WriteString("The currently activated tool group(s): ")
	withInstructions := false
	for i, g := range groups {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.Name)
		withInstructions = withInstructions || g.Instructions != ""
	}
	b.WriteString(".")
	if withInstructions {
		b.WriteString(metaToolInstructions)
		for _, g := range groups {
			if g.Instructions != "" {
				b.WriteString(`<group name="` + g.Name + `">` + g.Instructions + "</group>")
			}
		}
		b.WriteString(metaToolInstructionsEnd)
	}
	return b.String()
}

// StructuredOutputAllowed is the structured-output tool's permission
// message.
const StructuredOutputAllowed = StructuredOutputName + " is always allowed."
