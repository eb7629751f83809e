package pycompat

import "embed"

// BuiltinTools holds the reference's descriptions and input schemas of its
// built-in tools (Bash, Read, Write, Edit, Glob, Grep) as the model sees
// them: <name>.txt is a tool's description and <name>.json its input
// schema, byte for byte as the reference's v2.0.6 sends them. Package
// tool/builtin reads them from here, so every text the model sees stays
// in this package.
//
//go:embed builtintools/*.txt builtintools/*.json
var BuiltinTools embed.FS

// BuiltinText returns file name of BuiltinTools; a missing file is a
// programming error (the set is fixed at build time), so it panics.
func BuiltinText(name string) string {
	b, err := BuiltinTools.ReadFile("builtintools/" + name)
	if err != nil {
		panic("pycompat: no built-in tool text " + name)
	}
	return string(b)
}
