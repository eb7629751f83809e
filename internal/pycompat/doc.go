// Package pycompat is the one home of what must read exactly as the Python
// reference (AgentScope 2.x) writes it: the texts the model or the client
// sees (the catalogue of core-spec Appendix A and the permission messages
// of §4.4), and, in its sub-packages, the spellings those texts quote.
//
// A model sees these strings in its context and a client compares them in
// replies and saved states, so they are part of the wire format: they must
// match the reference byte for byte, and a golden trace fails when one
// drifts. Keeping them here, rather than beside the code that uses them,
// means there is one place to diff against the reference when it changes,
// and the engine and the conformance runner cannot disagree.
//
//   - pycompat: the texts, as constants and small functions that fill in
//     the reference's f-strings, and Python's strftime for the time the
//     runtime-state reminder shows.
//   - [github.com/agentscope-go/agentscope/internal/pycompat/jsonstr]: JSON
//     string literals in both spellings the reference writes (pydantic's
//     model_dump_json, and json.dumps with ensure_ascii).
//   - [github.com/agentscope-go/agentscope/internal/pycompat/pyjson]:
//     json.dumps, json.loads (with its error messages), repr() and str()
//     and the argument repair, over values that keep key order and
//     int/float; the conformance runner's json.dumps is this one.
//   - [github.com/agentscope-go/agentscope/internal/pycompat/pyschema]: the
//     jsonschema library's error wording and best_match.
//
// Public packages re-export a text as a constant (const X = pycompat.X)
// where callers compare against it; the definition stays here.
package pycompat
