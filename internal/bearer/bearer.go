// Package bearer checks an Authorization header for a bearer token, one
// way for every HTTP endpoint the project serves (the API of package
// server, the MCP endpoint of agentscope serve and agentscope mcp --http).
package bearer

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"
)

// Match reports whether authorization, an Authorization header's value,
// carries token under the Bearer scheme. The scheme is matched without
// regard to case and may be followed by more than one space, as RFC 7235
// §2.1 has it ("bearer", "BEARER" are the same scheme; RFC 6750 §2.1).
//
// The comparison takes the same time whatever the header holds: both
// sides are hashed first, so not even the token's length shows in the
// time an answer takes. An empty token matches nothing.
func Match(authorization, token string) bool {
	if token == "" {
		return false
	}
	scheme, got, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got = strings.TrimLeft(got, " ")
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
