package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// The budgets of Glob and Grep. A model chooses their patterns and
// directories, so a call must end in bounded time and memory whatever it
// asks for; a call that hits a budget returns what it found so far and
// says so in its result.
const (
	// DefaultSearchTimeout is how long one Glob or Grep call may search.
	DefaultSearchTimeout = 20 * time.Second
	// DefaultGlobMaxMatches is how many files one Glob call lists.
	DefaultGlobMaxMatches = 5000
	// DefaultGrepMaxFiles is how many files one Grep call opens.
	DefaultGrepMaxFiles = 50_000
	// DefaultGrepMaxBytes is how many bytes one Grep call reads.
	DefaultGrepMaxBytes = 512 << 20
	// GrepMaxResults is how many result lines one Grep call collects
	// (before head_limit and offset page them).
	GrepMaxResults = 10_000
	// MaxReadOutputBytes caps the text of one Read result; a window
	// that would be longer ends with a note giving the offset to read on
	// from. The default window (2,000 lines of at most 2,000 ASCII
	// characters) always fits.
	MaxReadOutputBytes = 4 << 20
)

func (c Config) searchTimeout() time.Duration {
	if c.SearchTimeout > 0 {
		return c.SearchTimeout
	}
	return DefaultSearchTimeout
}

func (c Config) globMaxMatches() int {
	if c.GlobMaxMatches > 0 {
		return c.GlobMaxMatches
	}
	return DefaultGlobMaxMatches
}

func (c Config) grepMaxFiles() int {
	if c.GrepMaxFiles > 0 {
		return c.GrepMaxFiles
	}
	return DefaultGrepMaxFiles
}

func (c Config) grepMaxBytes() int64 {
	if c.GrepMaxBytes > 0 {
		return c.GrepMaxBytes
	}
	return DefaultGrepMaxBytes
}

// timeNote is the line a search cut short by its time budget ends with.
func timeNote(d time.Duration) string {
	return fmt.Sprintf("(search stopped after %s; results are incomplete)", d)
}

// virtualDirs are the kernel's virtual filesystems. A search that reaches
// one from above does not enter it: what lies there is process memory and
// environments, devices and endless or blocking reads, not a project's
// files, and /proc alone can hold more entries than a budget. A search
// started inside one searches it.
var virtualDirs = []string{"/proc", "/dev", "/sys"}

// skipVirtual reports whether a search from realRoot skips realDir (both
// with their symlinks resolved).
func skipVirtual(realDir, realRoot string) bool {
	for _, v := range virtualDirs {
		if realDir == v && !within(realRoot, v) {
			return true
		}
	}
	return false
}

// enterDirHook, when set (by tests), is called as Glob and Grep enter
// each directory: it lets a test cancel a search at a known point of its
// walk, or prune a directory (by returning true) so a walk of / stays
// short on a machine with a large tree.
var enterDirHook func(dir string) (prune bool)

// enteringDir reports whether the walk should pass dir by.
func enteringDir(dir string) bool {
	return enterDirHook != nil && enterDirHook(dir)
}

// errNotRegular is returned for devices, FIFOs, sockets and the like:
// reading one may never end (/dev/zero, a FIFO without a writer) or have
// effects, and none of them is a file a model means to read.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading only when it is a regular file
// (after symlinks). The open does not block even when a FIFO is swapped
// in after the first check (O_NONBLOCK), and the check is repeated on
// the open file, which is what is read.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, errNotRegular
	}
	return openChecked(path)
}

// openChecked is openRegular's second check, the one that holds when
// path changes after the first: the open cannot block and the file it
// opened is checked.
func openChecked(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, errNotRegular
	}
	return f, fi, nil
}

// ctxReader fails reads once ctx is done, so a long read stops between
// two chunks.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// addSat is a+b for non-negative a and b, saturated instead of wrapping:
// offsets and limits come from the model.
func addSat(a, b int) int {
	if a > maxInt-b {
		return maxInt
	}
	return a + b
}

const maxInt = int(^uint(0) >> 1)
