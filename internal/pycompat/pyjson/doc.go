// Package pyjson reads and writes JSON the way the reference's Python code
// sees it, because several model-facing texts quote Python's view of a
// value: json.loads error messages ("Expecting value: line 1 column 1
// (char 0)"), repr() of decoded values ("'hot'", "{'a': 1}", "25.0"), and
// json.dumps output (", " and ": " separators).
//
// A [Value] keeps what encoding/json throws away and those texts depend on:
// object key order and whether a number was written as an int or a float.
// [Parse] is strict (Python's json module, NaN/Infinity accepted as Python
// does); [Repair] is a lenient reader for the truncated or sloppy argument
// text models produce.
package pyjson
