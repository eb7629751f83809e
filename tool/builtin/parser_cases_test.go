package builtin

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// parserCase is one row of testdata/parser_cases.json: a command and what
// one analysis step of the reference returned for it.
type parserCase struct {
	Test           string          `json:"test"`
	Method         string          `json:"method"`
	Kind           string          `json:"kind"`
	Command        string          `json:"command"`
	Pattern        string          `json:"pattern"`
	Want           json.RawMessage `json:"want"`
	DangerousFiles []string        `json:"dangerous_files"`
}

func TestReferenceParserCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/parser_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Rows []parserCase }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Rows) < 200 {
		t.Fatalf("%d rows, want at least 200", len(file.Rows))
	}
	for _, c := range file.Rows {
		t.Run(c.Test+"/"+c.Command, func(t *testing.T) {
			var got any
			switch c.Method {
			case "extract_command_prefixes":
				got = nonNil(CommandPrefixes(c.Command, 5))
			case "is_read_only_command":
				got = IsReadOnly(c.Command)
			case "extract_file_paths":
				got = pairs(FilePaths(c.Command), false)
			case "extract_redirections":
				got = pairs(FilePaths(c.Command), true)
			case "check_sed_constraints":
				got = SedViolation(c.Command, c.DangerousFiles)
			case "match_rule":
				got = MatchCommandRule(c.Pattern, c.Command)
			case "check_injection_risk":
				got = InjectionRisk(c.Command)
			case "check_dangerous_command":
				got = DangerousPattern(c.Command)
			default:
				t.Fatalf("unknown method %q", c.Method)
			}
			check(t, c, got)
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// pairs renders FilePaths as the reference's list of (command, path)
// tuples, or only the redirect targets.
func pairs(ps [][2]string, redirectsOnly bool) any {
	if redirectsOnly {
		out := []string{}
		for _, p := range ps {
			if p[0] == "redirect" {
				out = append(out, p[1])
			}
		}
		return out
	}
	out := [][]string{}
	for _, p := range ps {
		out = append(out, []string{p[0], p[1]})
	}
	return out
}

func check(t *testing.T, c parserCase, got any) {
	t.Helper()
	str, _ := got.(string)
	switch c.Kind {
	case "true", "false":
		if got != (c.Kind == "true") {
			t.Errorf("%s(%q) = %v, want %s", c.Method, c.Command, got, c.Kind)
		}
	case "none":
		if str != "" {
			t.Errorf("%s(%q) = %q, want none", c.Method, c.Command, str)
		}
	case "notnone":
		if str == "" {
			t.Errorf("%s(%q) = none, want a finding", c.Method, c.Command)
		}
	case "contains":
		var sub string
		if err := json.Unmarshal(c.Want, &sub); err != nil {
			t.Fatal(err)
		}
		if str == "" || !strings.Contains(str, sub) {
			t.Errorf("%s(%q) = %q, want one containing %q", c.Method, c.Command, str, sub)
		}
	case "equal":
		if string(c.Want) == "null" {
			if str != "" {
				t.Errorf("%s(%q) = %q, want none", c.Method, c.Command, str)
			}
			return
		}
		want := reflect.New(reflect.TypeOf(got))
		if err := json.Unmarshal(c.Want, want.Interface()); err != nil {
			t.Fatalf("want %s: %v", c.Want, err)
		}
		if !reflect.DeepEqual(got, want.Elem().Interface()) {
			t.Errorf("%s(%q) = %#v, want %s", c.Method, c.Command, got, c.Want)
		}
	default:
		t.Fatalf("unknown kind %q", c.Kind)
	}
}
