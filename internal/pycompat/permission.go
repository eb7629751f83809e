package pycompat

// Messages and reasons of the permission engine's decisions, which a
// client shows when it asks the user and the state records (core-spec
// §4.4; permission/_engine.py). name is the tool's name.

// PermissionRequired is an ASK's message.
func PermissionRequired(name string) string { return "Permission required for " + name }

// PermissionGranted is the message of an ALLOW by an allow rule.
func PermissionGranted(name string) string { return "Permission granted for " + name }

// PermissionRuleDenied is the message of a DENY by a deny rule.
func PermissionRuleDenied(name string) string {
	return "Permission to use " + name + " has been denied"
}

// PermissionReadOnly is the message of the ALLOW of a read-only call.
func PermissionReadOnly(name string) string {
	return "Permission granted for " + name + " (read-only invocation)"
}

// PermissionExploreDenied is the message of EXPLORE's DENY of a
// modification.
func PermissionExploreDenied(name string) string {
	return "Permission denied for " + name + " (explore mode is read-only)"
}

// PermissionBypass is the message of BYPASS's ALLOW.
func PermissionBypass(name string) string { return "Permission granted for " + name + " (bypass mode)" }

// PermissionDontAskDenied is the message of DONT_ASK's fallback DENY.
func PermissionDontAskDenied(name string) string {
	return "Permission denied for " + name + " (dont_ask mode - user not available)"
}

// PermissionDontAskConverted is the message of DONT_ASK's DENY in place of
// an ASK.
func PermissionDontAskConverted(name string) string {
	return "Permission denied for " + name + " (dont_ask mode - ASK converted to DENY, user not available)"
}

// PermissionUnknownMode is the message of the fail-closed DENY for a mode
// the engine does not know.
func PermissionUnknownMode(mode string) string { return "Unknown permission mode: " + mode }

const (
	ReasonReadOnly         = "Read-only operations are auto-allowed"
	ReasonExplore          = "Explore mode does not allow modifications"
	ReasonBypass           = "Bypass mode allows all operations"
	ReasonDontAsk          = "User is not available to answer permission prompts"
	PermissionNoTool       = "Permission denied: no tool to check"
	ReasonNoTool           = "No tool"
	PermissionUserApproved = "Already allowed by user confirmation."
	// FunctionToolMessage is the message of the reference function tools'
	// own (non-safety) ASK.
	FunctionToolMessage = "Custom function tools must be explicitly allowed by the user."
)

// ReasonRule is f"Rule: {rule_content}"; a null content (valid false)
// prints as Python's None, an empty one as nothing.
func ReasonRule(content string, valid bool) string {
	if !valid {
		return "Rule: None"
	}
	return "Rule: " + content
}

// ReasonMode is f"Mode: {mode}".
func ReasonMode(mode string) string { return "Mode: " + mode }

// ReasonDontAskConverted is the reason of DONT_ASK's DENY in place of an
// ASK that had reason original (empty for None).
func ReasonDontAskConverted(original string) string {
	return "DONT_ASK mode converted ASK to DENY. Original reason: " + PyStrOrNone(original)
}

// PyStrOrNone is str() of an optional str: None when empty.
func PyStrOrNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}
