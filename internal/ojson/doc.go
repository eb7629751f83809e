// Package ojson holds JSON values that keep object key order and number
// literals: where encoding/json's map[string]any would shuffle keys and
// round numbers through float64, these values encode back exactly as read.
// Key order matters wherever it is meaningful to a reader (a schema's
// property order is what a model sees; a trace's traversal order decides
// how ids are numbered). It also holds the one deep copy of decoded JSON
// values (map[string]any, []any, *Object) that blocks, messages and states
// use to share nothing mutable with their clones.
package ojson
