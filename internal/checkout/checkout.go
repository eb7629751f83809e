package checkout

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the core module's path, the one the root go.mod declares.
const Module = "github.com/agentscope-go/agentscope"

// Root returns the nearest directory at or above dir whose go.mod declares
// Module.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		path, err := modulePath(filepath.Join(d, "go.mod"))
		if err == nil && path == Module {
			return d, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod declaring %s at or above %s", Module, dir)
		}
	}
}

// Here is Root of the working directory.
func Here() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return Root(wd)
}

func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", sc.Err()
}
