// Package toolresult flattens a tool result's output for wires whose tool
// messages hold text only (Gemini's functionResponse, Ollama's role:"tool"),
// the reference's convert_tool_result_to_string: text parts are joined with
// "\n"; media the model accepts is promoted to a following user turn and
// referred to by an identifier; other media become a note.
package toolresult
