package realpath

import (
	"os"
	"path/filepath"
	"strings"
)

// maxHops is how many symlinks a walk follows (Linux's own bound is 40;
// beyond 255 the kernel has long given up).
const maxHops = 255

// Walk resolves the absolute path p. ok is false when its links loop or
// cannot be read: then no file is reached.
func Walk(p string) (resolved string, ok bool) {
	hops := 0
	return walk("/", strings.Split(p, "/"), &hops)
}

func walk(dir string, rest []string, hops *int) (string, bool) {
	for i, comp := range rest {
		switch comp {
		case "", ".":
			continue
		case "..":
			dir = filepath.Dir(dir)
			continue
		}
		next := filepath.Join(dir, comp)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest[i+1:]...)...), true
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			dir = next
			continue
		}
		if *hops++; *hops > maxHops {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			dir = "/"
		}
		r, ok := walk(dir, strings.Split(target, "/"), hops)
		if !ok {
			return "", false
		}
		dir = r
	}
	return dir, true
}
