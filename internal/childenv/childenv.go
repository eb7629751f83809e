package childenv

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// unixNames are getDefaultEnvironment's variables (HOME, LOGNAME, PATH,
// SHELL, TERM, USER) and a few more that change how a program behaves but
// carry no credential: the locale (LANG, LC_ALL, LC_CTYPE), without which
// tools fall back to ASCII and mangle the UTF-8 text the agent reads; the
// time zone (TZ), so `date` agrees with the user; and TMPDIR, which on
// some systems (macOS) is the only writable temporary directory.
var unixNames = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// windowsNames are getDefaultEnvironment's variables on Windows, where a
// program cannot even start without some of them, and TZ.
var windowsNames = []string{
	"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES",
	"TZ",
}

// Environ is a child's whole environment: the variables of the allow-list
// the parent has set, then extra, KEY=VALUE entries the configuration
// names (a later entry for a key replaces an earlier one, and an entry
// replaces an inherited value). Nothing else of the parent's environment
// is passed on. An inherited value that starts with "()" is dropped, as
// getDefaultEnvironment drops it: a shell would take it for a function
// definition. An extra entry without "=" or with an empty key is an
// error.
func Environ(extra []string) ([]string, error) {
	names := unixNames
	if runtime.GOOS == "windows" {
		names = windowsNames
	}
	var out []string
	at := map[string]int{} // key → index in out
	set := func(k, kv string) {
		if i, ok := at[k]; ok {
			out[i] = kv
			return
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	for _, k := range names {
		if v, ok := os.LookupEnv(k); ok && !strings.HasPrefix(v, "()") {
			set(k, k+"="+v)
		}
	}
	for _, kv := range extra {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
		}
		set(k, kv)
	}
	return out, nil
}
