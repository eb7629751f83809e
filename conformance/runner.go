package conformance

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

//go:embed DEVIATIONS.md
var deviationsMD string

var excusedLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^\\s*- `([^`]+)`") })

// Excused returns the field paths DEVIATIONS.md excuses.
func Excused() ([]string, error) {
	var out []string
	for _, line := range strings.Split(deviationsMD, "\n") {
		m := excusedLineRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		p := m[1]
		if !strings.HasPrefix(p, "steps") && !strings.HasPrefix(p, "final_context") &&
			!strings.HasPrefix(p, "folded_replies") && !strings.HasPrefix(p, "unused_model_turns") {
			continue
		}
		if _, err := parsePattern(p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Result is one trace file's verdict.
type Result struct {
	Name   string      `json:"name"`
	File   string      `json:"file"`
	Passed bool        `json:"passed"`
	Diff   *Difference `json:"difference,omitempty"`
	// Err is set when the trace could not be run at all.
	Err string `json:"error,omitempty"`
}

// Files expands paths: files are taken as given, directories contribute
// their *.json files (sorted).
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	return out, nil
}

// RunFile replays one golden trace and compares at level 1 or 2.
func RunFile(path string, level int) Result {
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	res := Result{Name: name, File: path}
	data, err := os.ReadFile(path)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	v, err := parseOrdered(data)
	if err != nil {
		res.Err = fmt.Sprintf("not a JSON trace: %v", err)
		return res
	}
	golden, ok := v.(*ojson.Object)
	if !ok {
		res.Err = "not a JSON trace: expected an object"
		return res
	}
	if s := getStr(golden, "scenario", ""); s != "" {
		res.Name = s
	}
	d, err := Compare(golden, level)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	res.Diff = d
	res.Passed = d == nil
	return res
}

// Compare replays a parsed golden trace and returns its first unexcused
// difference (nil when it conforms).
func Compare(golden *ojson.Object, level int) (*Difference, error) {
	paths, err := Excused()
	if err != nil {
		return nil, err
	}
	got, err := record(golden)
	if err != nil {
		return nil, err
	}
	// Both sides are normalized from their JSON text so that the same
	// traversal order numbers the ids.
	gv, err := parseOrdered(toJSON(got))
	if err != nil {
		return nil, err
	}
	// Excuse predicates look at the golden document; they test fields that
	// normalization does not touch, so the raw and normalized golden agree.
	c := &comparer{want: golden}
	for _, p := range paths {
		pat, _ := parsePattern(p)
		c.excuses = append(c.excuses, pat)
	}
	want := normalize(golden, level, c.excused)
	gotN := normalize(gv.(*ojson.Object), level, c.excused)
	c.want = want
	return c.compareDocs(gotN, want), nil
}

// Run replays every trace under paths.
func Run(paths []string, level int) ([]Result, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(files))
	for _, f := range files {
		out = append(out, RunFile(f, level))
	}
	return out, nil
}

// Report writes one line per result ("PASS name" / "FAIL name: first
// difference") and a last line "N passed, M failed"; with asJSON it writes
// one JSON document instead. It returns the counts.
func Report(w io.Writer, results []Result, asJSON bool) (passed, failed int) {
	for _, r := range results {
		if r.Passed {
			passed++
		} else {
			failed++
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Results []Result `json:"results"`
			Passed  int      `json:"passed"`
			Failed  int      `json:"failed"`
		}{results, passed, failed})
		return passed, failed
	}
	for _, r := range results {
		switch {
		case r.Passed:
			fmt.Fprintf(w, "PASS %s\n", r.Name)
		case r.Err != "":
			fmt.Fprintf(w, "FAIL %s: %s\n", r.Name, r.Err)
		default:
			fmt.Fprintf(w, "FAIL %s: %s\n", r.Name, r.Diff.Error())
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return passed, failed
}
