package block

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentscope-go/agentscope/internal/wire"
)

// NullString is a string field that may also be JSON null. The zero value is
// null; Some("") is the empty string, which the wire keeps apart from null
// (a permission rule's rule_content is "" for a generic tool in the
// reference, a data block may be named ""), so both round-trip as they came.
//
// A value type rather than *string: copies (clones of blocks, of messages)
// never share it, == compares values, and the zero value needs no
// allocation.
type NullString struct {
	String string
	Valid  bool // false: null (String is then "")
}

// Some returns the non-null string s.
func Some(s string) NullString { return NullString{String: s, Valid: true} }

// Or returns the string, or def for null.
func (n NullString) Or(def string) string {
	if !n.Valid {
		return def
	}
	return n.String
}

// AppendJSON appends the string literal, or null.
func (n NullString) AppendJSON(dst []byte) []byte {
	return wire.AppendNullable(dst, n.String, n.Valid)
}

// MarshalJSON returns the string literal, or null.
func (n NullString) MarshalJSON() ([]byte, error) { return n.AppendJSON(nil), nil }

// UnmarshalJSON reads a string literal (Valid) or null (not Valid); any
// other JSON value is an error.
func (n *NullString) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = NullString{}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("block.NullString: want a string or null: %w", err)
	}
	*n = Some(s)
	return nil
}

// IsZero reports null, so that a field tagged omitzero is left out when it
// is null and kept when it is "".
func (n NullString) IsZero() bool { return !n.Valid }
