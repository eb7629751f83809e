package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

func init() {
	register("version", command{
		Summary: "print the version of agentscope (also: agentscope --version)",
		Usage:   "",
		Run:     runVersion,
	})
}

// version is set at link time by release builds
// (-ldflags "-X main.version=v1.2.3"); otherwise the module version and
// VCS stamp of the build are read back.
var version string

// runVersion prints "agentscope VERSION (details, go1.x)".
func runVersion(ctx context.Context, inv *invocation) int {
	fs := inv.Flags(commands[inv.Name])
	if code, done := parseFlags(fs, inv); done {
		return code
	}
	if fs.NArg() > 0 {
		inv.Errorf("unexpected arguments %q", fs.Args())
		return exitUsage
	}
	fmt.Fprintln(inv.Stdout, versionLine(version, debug.ReadBuildInfo))
	return exitOK
}

// versionLine describes the build: the linked-in version, else the
// module's ("v0.3.0" from go install …@v0.3.0, "(devel)" from a checkout),
// then the commit, its time and "modified" when the build recorded them,
// and the Go version.
func versionLine(linked string, read func() (*debug.BuildInfo, bool)) string {
	v := linked
	var details []string
	if bi, ok := read(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		set := map[string]string{}
		for _, s := range bi.Settings {
			set[s.Key] = s.Value
		}
		if r := set["vcs.revision"]; r != "" {
			details = append(details, "commit "+r[:min(len(r), 12)])
		}
		if t := set["vcs.time"]; t != "" {
			details = append(details, t)
		}
		if set["vcs.modified"] == "true" {
			details = append(details, "modified")
		}
	}
	if v == "" {
		v = "unknown"
	}
	details = append(details, runtime.Version())
	return "agentscope " + v + " (" + strings.Join(details, ", ") + ")"
}
