package agui

import (
	"encoding/json"
	"testing"
)

// stripNulls never reads past its input, and keeps valid JSON valid.
func FuzzStripNulls(f *testing.F) {
	for _, s := range []string{`{"a":null,"b":[null,{"c":null}],"metadata":{"x":null}}`, `[1,"x\"",{"value":null}]`, `{"a":`, `"`, `{"a" "b"}`, `[,]`, `{,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out := stripNulls(nil, src)
		if json.Valid(src) && !json.Valid(out) {
			t.Fatalf("%s became %s", src, out)
		}
	})
}

// A chunk of any bytes converts without a panic.
func FuzzAppendChunk(f *testing.F) {
	for _, s := range []string{"data: {\"type\":\"REPLY_START\",\"session_id\":\"s\",\"reply_id\":\"r\",\"name\":\"a\"}\r\n\r\n", ":\n\n", "data:\n", "data: {\"type\":\"TOOL_RESULT_END\",\"reply_id\":\"r\",\"tool_call_id\":\"c\",\"state\":\"success\"}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, chunk []byte) {
		NewConverter().AppendChunk(nil, chunk)
	})
}
