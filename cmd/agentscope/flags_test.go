package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestFlagsFirst(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("json", false, "")
	fs.String("model", "", "")
	for _, c := range []struct{ in, want []string }{
		{[]string{"hi", "--model", "demo"}, []string{"--model", "demo", "--", "hi"}},
		{[]string{"a", "--json", "b", "-model=m", "c"}, []string{"--json", "-model=m", "--", "a", "b", "c"}},
		{[]string{"--json=false", "-", "--", "-v", "--model"}, []string{"--json=false", "--", "-", "-v", "--model"}},
		{[]string{"hi", "--bogus", "x"}, []string{"--bogus", "--", "hi", "x"}},
		{[]string{"hi", "--model"}, []string{"--model", "--", "hi"}},
		{nil, []string{"--"}},
	} {
		if got := flagsFirst(fs, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
