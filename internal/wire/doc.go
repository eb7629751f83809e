// Package wire writes and reads JSON the way AgentScope 2.x (pydantic) does.
//
// Encoding appends to a caller-owned []byte so that hot paths (an event per
// streamed token) allocate nothing, and escapes strings like pydantic-core:
// only '"', '\\' and control characters are escaped; non-ASCII text and
// '<', '>', '&' are written as they are, unlike encoding/json. Decoding goes
// through encoding/json into raw fields, with helpers that enforce required
// keys and report typed errors naming the missing or malformed field.
package wire
