package builtin

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
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
				checkPrefixes(t, c)
				return
			case "is_read_only_command":
				checkReadOnly(t, c)
				return
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

// stricterReadOnly are the reference's read-only commands this analysis
// does not take as read-only, each with why. Where the verdicts differ,
// ours is the stricter: a row the reference calls not read-only must not
// be read-only here.
var stricterReadOnly = map[string]string{
	"docker inspect container_id": "a container's configuration holds its environment, where its secrets usually are",
}

func checkReadOnly(t *testing.T, c parserCase) {
	t.Helper()
	got := ReadOnlyCommand(c.Command, Config{})
	ref := c.Kind == "true"
	why, listed := stricterReadOnly[c.Command]
	switch {
	case got && !ref:
		t.Errorf("ReadOnlyCommand(%q) = true; the reference says it is not read-only", c.Command)
	case ref && !got && !listed:
		t.Errorf("ReadOnlyCommand(%q) = false, the reference's true (%s), and it is not listed as stricter", c.Command, analyze(c.Command, Config{}).notReadOnly())
	case listed && got:
		t.Errorf("%q is listed as stricter (%s) but is read-only", c.Command, why)
	}
}

// stricterPrefixes are the reference's suggested prefixes this analysis
// does not suggest, each with why.
var stricterPrefixes = map[string]string{
	"docker compose up → docker compose":                             "docker compose:* would run any container: the exact command is suggested",
	"python -m pytest → python -m":                                   "python -m:* runs any module: the exact command is suggested",
	"PYTHONUNBUFFERED=1 python -m pytest → python -m":                "python -m:* runs any module",
	"NODE_ENV=prod npm run build → npm run":                          "an assignment before the command: only the exact command",
	"DEBUG=1 npm test → npm test":                                    "an assignment before the command: only the exact command",
	"PATH=/usr/bin npm run build → npm run":                          "an assignment before the command (PATH!): only the exact command",
	"CI=true npm run test → npm run":                                 "an assignment before the command: only the exact command",
	"git commit || git status → git status":                          "git status is read-only: it needs no rule",
	"docker ps | grep nginx → docker ps":                             "docker ps is read-only: it needs no rule",
	"git add . && git commit && git push && git status → git status": "git status is read-only: it needs no rule",
	"git add . && git commit && git push && git status → git push":   "git push:* would allow --receive-pack=…: the exact command is suggested",
	"npm install && npm run build && npm test → npm install":         "npm install:* would install any package and run its scripts: the exact command",
	"npm install; npm run build → npm install":                       "npm install:* would install any package: the exact command",
	"npm install && npm run build | tee log.txt → npm install":       "npm install:* would install any package: the exact command",
	"docker build . && docker push → docker build":                   "docker build:* builds any context: the exact command",
	"docker build . && docker push → docker push":                    "docker push:* pushes anywhere: the exact command",
}

// stricterPrefixNames are the reference's prefixes this analysis never
// suggests, in any command, each with why.
var stricterPrefixNames = map[string]string{
	"npm run":     "npm run:* would allow npm run --script-shell=… (any program): the exact command",
	"npm test":    "npm test:* would allow npm test --script-shell=…: the exact command",
	"cargo build": "cargo build:* would allow cargo build --config 'build.rustc-wrapper=…': the exact command",
}

// checkPrefixes: every prefix rule suggested here is one the reference
// suggests (never a wider one); a reference prefix not suggested must be
// listed; the other suggestions are exact commands.
func checkPrefixes(t *testing.T, c parserCase) {
	t.Helper()
	var ref []string
	if err := json.Unmarshal(c.Want, &ref); err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, r := range NewBash(Config{}).SuggestRules(map[string]any{"command": c.Command}) {
		ours = append(ours, r.RuleContent.String)
	}
	for _, o := range ours {
		if p, ok := strings.CutSuffix(o, ":*"); ok && !slices.Contains(ref, p) {
			t.Errorf("%q: suggested %q, wider than the reference's %q", c.Command, o, ref)
		}
		if !strings.HasSuffix(o, ":*") && strings.Contains(o, "*") {
			t.Errorf("%q: suggested a pattern %q", c.Command, o)
		}
	}
	for _, p := range ref {
		if !slices.Contains(ours, p+":*") {
			_, named := stricterPrefixNames[p]
			if _, ok := stricterPrefixes[c.Command+" → "+p]; !ok && !named {
				t.Errorf("%q: the reference's prefix %q is not suggested (%q) and not listed as stricter", c.Command, p, ours)
			}
		}
	}
}
