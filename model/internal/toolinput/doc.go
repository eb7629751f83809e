// Package toolinput turns a tool call's raw argument text into the JSON
// object the Anthropic, Gemini and Ollama wires require (they take the
// arguments as an object, not as the string the model streamed).
//
// The text is usually valid. When a stream was cut off mid-call it is a
// truncated prefix, and the provider would reject the whole history over
// it, so Object repairs what it can (closing open strings, arrays and
// objects, dropping a dangling key or comma) and otherwise falls back to
// {} — the call already has an interrupted result, so an empty object
// loses nothing the model needs.
package toolinput
