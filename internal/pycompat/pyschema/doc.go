// Package pyschema renders a JSON Schema validation failure the way
// Python's jsonschema.validate reports it: it enumerates errors in the
// order jsonschema's Draft 2020-12 validator yields them (schema keywords
// in document order) with the library's exact message templates, then
// picks one with jsonschema.exceptions.best_match's relevance rules. The
// agent quotes that message to the model ("Input validation failed for
// tool 'add': 'one' is not of type 'integer'"), so it has to read the same
// as the reference's.
//
// It is a message renderer, not the validator of record: callers validate
// with a complete implementation first and ask for a message only on
// failure. Keywords it does not model ($dynamicRef, format,
// unevaluatedItems, unevaluatedProperties, remote $refs) produce no
// errors here; [BestMatch] reports ok=false when it finds nothing.
package pyschema
