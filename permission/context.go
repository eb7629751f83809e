package permission

// WorkingDirectory is a directory edits are allowed in (ACCEPT_EDITS and
// DONT_ASK), with where it came from.
type WorkingDirectory struct {
	Path   string
	Source string
}

// Context is the persisted permission policy: the mode, working directories
// and rules keyed by tool name. Its JSON is the reference's
// permission_context, field order mode, working_directories, allow_rules,
// deny_rules, ask_rules, with map keys in insertion order.
//
// Once a Context is handed to an [Engine], read and change it only through
// the Engine (or while no Check/AddRule runs): the Engine guards it.
type Context struct {
	Mode               Mode
	WorkingDirectories map[string]WorkingDirectory
	AllowRules         map[string][]Rule
	DenyRules          map[string][]Rule
	AskRules           map[string][]Rule

	// Insertion order of the map keys, so JSON keeps the reference's key
	// order across a round trip; keys set directly on the maps come after,
	// sorted.
	dirOrder, allowOrder, denyOrder, askOrder []string
}

// NewContext returns an empty context in mode.
func NewContext(mode Mode) *Context {
	panic("unimplemented")
}

// AddWorkingDirectory records path (replacing an entry for the same path).
func (c *Context) AddWorkingDirectory(path, source string) {
	panic("unimplemented")
}

// Clone returns a deep copy.
func (c *Context) Clone() *Context {
	panic("unimplemented")
}

// AppendJSON appends the reference JSON of c.
func (c *Context) AppendJSON(dst []byte) []byte {
	panic("unimplemented")
}

// MarshalJSON returns the reference JSON of c.
func (c *Context) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// UnmarshalJSON decodes a permission_context. Absent fields take the
// reference defaults (mode "default", empty maps). An unknown mode is a
// *ModeError; any other malformed field wraps ErrInvalidContext.
func (c *Context) UnmarshalJSON(data []byte) error {
	panic("unimplemented")
}
