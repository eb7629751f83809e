// Package wire writes and reads JSON the way AgentScope 2.x (pydantic) does.
//
// Encoding appends to a caller-owned []byte so that hot paths (an event per
// streamed token) allocate nothing, and escapes strings like pydantic-core:
// only '"', '\\' and control characters are escaped; non-ASCII text and
// '<', '>', '&' are written as they are, unlike encoding/json. Decoding scans
// an object once with a hand-written scanner that accepts exactly what
// encoding/json accepts (a differential fuzz test holds it to that), records
// its members as spans, and converts a member only when a getter asks for
// it; the getters enforce required keys and report typed errors naming the
// missing or malformed field. Text that is not a JSON object falls back to
// encoding/json for its error, so errors read as they always did. The
// strings a decode hands out share one allocation.
package wire
