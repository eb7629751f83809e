package permission

// Mode selects the engine's policy for invocations no rule settles.
type Mode string

// Permission modes (wire values).
const (
	// ModeDefault asks the user for anything not allowed by a rule or the tool.
	ModeDefault Mode = "default"
	// ModeAcceptEdits additionally lets tools auto-allow edits inside the
	// working directories; otherwise it behaves like ModeDefault.
	ModeAcceptEdits Mode = "accept_edits"
	// ModeExplore allows only read-only invocations and denies the rest;
	// allow rules cannot widen it.
	ModeExplore Mode = "explore"
	// ModeBypass allows everything not denied or asked by a rule, even the
	// tools' safety asks.
	ModeBypass Mode = "bypass"
	// ModeDontAsk never asks: every ask becomes a deny (the user is away).
	ModeDontAsk Mode = "dont_ask"
)

// ParseMode validates a wire mode value; an unknown one is a *ModeError.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeDefault, ModeAcceptEdits, ModeExplore, ModeBypass, ModeDontAsk:
		return m, nil
	}
	return "", &ModeError{Mode: s}
}
