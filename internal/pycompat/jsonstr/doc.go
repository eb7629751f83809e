// Package jsonstr writes JSON string literals the two ways the reference
// spells them, from one escaper:
//
//   - [Append]: pydantic's model_dump_json (serde_json), which is also
//     json.dumps(..., ensure_ascii=False). Only '"', '\\' and the control
//     characters below U+0020 are escaped (\b \f \n \r \t in short form,
//     the rest as \u00XX); DEL, non-ASCII text, '<', '>', '&' and
//     U+2028/U+2029 are written as they are, unlike encoding/json.
//   - [AppendASCII]: json.dumps' default ensure_ascii=True, which in
//     addition escapes DEL and every non-ASCII character as \uXXXX, with a
//     UTF-16 surrogate pair beyond the Basic Multilingual Plane.
//
// A Go string may hold invalid UTF-8, which neither Python writer can meet
// (a Python str is always text). Each invalid byte is written as U+FFFD
// (raw, or \ufffd in the ASCII spelling), so the output is always valid
// JSON; this is what both writers this package replaced did.
package jsonstr
