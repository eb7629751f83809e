package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// The expected texts are CPython 3.11's json.dumps(s, ensure_ascii=...)
// (pydantic-core writes the ensure_ascii=False column the same way), except
// for the invalid-UTF-8 rows, which no Python str can hold: there each bad
// byte is U+FFFD.
var cases = []struct {
	name, in, plain, ascii string
}{
	{"empty", "", `""`, `""`},
	{"plain", "plain text", `"plain text"`, `"plain text"`},
	{"quote and backslash", `q"b\`, `"q\"b\\"`, `"q\"b\\"`},
	{"short escapes", "\n\r\t\b\f", `"\n\r\t\b\f"`, `"\n\r\t\b\f"`},
	{"other controls", "\x00\x01\x1b\x1f", `"\u0000\u0001\u001b\u001f"`, `"\u0000\u0001\u001b\u001f"`},
	{"DEL", "a\x7fb", "\"a\x7fb\"", `"a\u007fb"`},
	{"html", "<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`, `"<a href='x'>&amp;</a>"`},
	{"slash", "a/b", `"a/b"`, `"a/b"`},
	{"latin and cjk", "é中", `"é中"`, `"\u00e9\u4e2d"`},
	{"line separators", "\u2028\u2029", "\"\u2028\u2029\"", `"\u2028\u2029"`},
	{"non-BMP", "😀𝄞", `"😀𝄞"`, `"\ud83d\ude00\ud834\udd1e"`},
	{"max rune", "\U0010ffff", "\"\U0010ffff\"", `"\udbff\udfff"`},
	{"replacement char", "\ufffd", "\"\ufffd\"", `"\ufffd"`},
	{"mixed", "x=\"é\"\n😀<", `"x=\"é\"\n😀<"`, `"x=\"\u00e9\"\n\ud83d\ude00<"`},
	{"invalid bytes", "bad\xffutf8\xc3", "\"bad\ufffdutf8\ufffd\"", `"bad\ufffdutf8\ufffd"`},
	{"encoded surrogate", "\xed\xa0\x80 s", "\"\ufffd\ufffd\ufffd s\"", `"\ufffd\ufffd\ufffd s"`},
	{"truncated rune at end", "ok\xe4\xb8", "\"ok\ufffd\ufffd\"", `"ok\ufffd\ufffd"`},
}

func TestSpellings(t *testing.T) {
	for _, c := range cases {
		if got := string(Append([]byte("x"), c.in)); got != "x"+c.plain {
			t.Errorf("%s: Append(%q) = %s, want %s", c.name, c.in, got[1:], c.plain)
		}
		if got := string(AppendASCII([]byte("x"), c.in)); got != "x"+c.ascii {
			t.Errorf("%s: AppendASCII(%q) = %s, want %s", c.name, c.in, got[1:], c.ascii)
		}
	}
}

// Both spellings are valid JSON that reads back as the input (with U+FFFD
// for invalid bytes), and the ASCII one is pure ASCII.
func TestReadsBack(t *testing.T) {
	for _, c := range cases {
		for _, out := range [][]byte{Append(nil, c.in), AppendASCII(nil, c.in)} {
			var back string
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("%s: %s: %v", c.name, out, err)
			}
			if back != string([]rune(c.in)) { // invalid bytes as U+FFFD
				t.Errorf("%s: %s reads back as %q", c.name, out, back)
			}
		}
		for _, b := range AppendASCII(nil, c.in) {
			if b >= utf8.RuneSelf || b == 0x7f {
				t.Errorf("%s: AppendASCII wrote byte %#x", c.name, b)
			}
		}
	}
}

func FuzzSpellings(f *testing.F) {
	for _, c := range cases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := string([]rune(s)) // invalid bytes as U+FFFD
		for _, out := range [][]byte{Append(nil, s), AppendASCII(nil, s)} {
			var back string
			if err := json.Unmarshal(out, &back); err != nil || back != want {
				t.Fatalf("%q: %s reads back as %q (%v)", s, out, back, err)
			}
		}
	})
}
