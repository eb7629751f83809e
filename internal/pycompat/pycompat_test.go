package pycompat

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// specTexts returns every `quoted` span of the core spec, with the
// catalogue's \n turned into a newline: the texts as the reference writes
// them, placeholders such as {name} included.
func specTexts(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("../../testdata/spec/core-spec.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(data), -1) {
		out[strings.ReplaceAll(m[1], `\n`, "\n")] = true
		// The structured-output results are one cell, split by " / ".
		for _, part := range strings.Split(m[1], "` / `") {
			out[part] = true
		}
	}
	return out
}

// Every text here that the spec catalogues (Appendix A, §3.3, §4.4) reads
// exactly as it does there, placeholders filled with the spec's names.
func TestTextsMatchTheSpec(t *testing.T) {
	spec := specTexts(t)
	texts := map[string]string{
		"park":                      ParkText,
		"structured done":           StructuredDoneText,
		"max iters":                 MaxItersText,
		"interruption message":      InterruptionMessage,
		"interrupted tool":          InterruptedToolText,
		"denied":                    DeniedText("{name}"),
		"validation failed":         InputValidationFailed("{name}", "{jsonschema message}"),
		"group inactive":            ToolGroupInactive("{name}", "{group}"),
		"not found":                 ToolNotFound("{name}"),
		"structured source":         StructuredSource,
		"injection source":          InjectionSource,
		"injection template":        InjectionTemplate,
		"structured output done":    StructuredOutputDone,
		"structured output failed":  StructuredOutputFailed("{details}"),
		"structured not required":   StructuredOutputNotRequired,
		"reminder suffix (normal)":  structuredNormal,
		"reminder suffix (forced)":  structuredForced,
		"reminder":                  strings.Replace(StructuredReminder(false), structuredNormal, "{suffix}", 1),
		"forced reminder":           strings.Replace(StructuredReminder(true), structuredForced, "{suffix}", 1),
		"rule denied":               PermissionRuleDenied("{tool}"),
		"required":                  PermissionRequired("{tool}"),
		"read-only":                 PermissionReadOnly("{tool}"),
		"granted":                   PermissionGranted("{tool}"),
		"explore":                   PermissionExploreDenied("{tool}"),
		"bypass":                    PermissionBypass("{tool}"),
		"dont_ask":                  PermissionDontAskDenied("{tool}"),
		"dont_ask converted":        PermissionDontAskConverted("{tool}"),
		"dont_ask converted reason": ReasonDontAskConverted("{orig}"),
		"rule reason":               ReasonRule("{content}", true),
		"mode reason":               ReasonMode("default"),
		"user approved":             PermissionUserApproved,
	}
	for name, text := range texts {
		if !spec[text] {
			t.Errorf("%s: %q is not in the spec", name, text)
		}
	}
}

func TestStructuredReminder(t *testing.T) {
	const prefix = "<system-reminder>You're required to generate structured output by calling the 'GenerateStructuredOutput' tool. "
	if got, want := StructuredReminder(false), prefix+structuredNormal+"</system-reminder>"; got != want {
		t.Errorf("normal: %q", got)
	}
	if got, want := StructuredReminder(true), prefix+structuredForced+"</system-reminder>"; got != want {
		t.Errorf("forced: %q", got)
	}
}

func TestPythonNone(t *testing.T) {
	if got := ReasonRule("", false); got != "Rule: None" {
		t.Errorf("null rule content: %q", got)
	}
	if got := ReasonRule("", true); got != "Rule: " {
		t.Errorf("empty rule content: %q", got)
	}
	if got := ReasonDontAskConverted(""); got != "DONT_ASK mode converted ASK to DENY. Original reason: None" {
		t.Errorf("null reason: %q", got)
	}
}

func TestMetaToolActivated(t *testing.T) {
	if got := MetaToolActivated(nil); got != "All tool groups are currently deactivated." {
		t.Errorf("none: %q", got)
	}
	if got := MetaToolActivated([]GroupInstructions{{Name: "a"}, {Name: "b"}}); got != "The currently activated tool group(s): a, b." {
		t.Errorf("no instructions: %q", got)
	}
	got := MetaToolActivated([]GroupInstructions{{Name: "a", Instructions: "use a"}, {Name: "b"}})
	want := "The currently activated tool group(s): a, b.\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n" +
		`<group name="a">use a</group>` + "\n</tool-instructions>"
	if got != want {
		t.Errorf("instructions:\n got %q\nwant %q", got, want)
	}
}
