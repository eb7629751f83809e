package builtin

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxIndexBytes bounds the index file trackedSecrets reads: past it the
// repository is taken to track secrets (a check that cannot be made
// asks).
const maxIndexBytes = 64 << 20

// trackedSecrets lists the files of the repository at top that its index
// tracks and c takes for secret (dotenv files, credential files, the
// configured secret paths), as absolute paths. What git prints from its
// objects (git show, git log -p, git diff) is their content, which no
// check of the working tree sees: a secret committed and then deleted
// from the tree is still in the index until the deletion is staged. ok is
// false when the index exists but cannot be read: the caller asks.
func (c Config) trackedSecrets(top string) (secrets []string, ok bool) {
	gitDir := filepath.Join(top, ".git")
	if fi, err := os.Stat(gitDir); err == nil && !fi.IsDir() {
		// A worktree or submodule: ".git" is a file naming the git dir.
		b, err := os.ReadFile(gitDir)
		if err != nil {
			return nil, false
		}
		dir, found := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !found {
			return nil, false
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(top, dir)
		}
		gitDir = dir
	}
	f, err := os.Open(filepath.Join(gitDir, "index"))
	if os.IsNotExist(err) {
		return nil, true // nothing staged yet
	}
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	if err != nil || len(data) > maxIndexBytes {
		return nil, false
	}
	names, ok := indexNames(data)
	if !ok {
		return nil, false
	}
	for _, n := range names {
		abs := filepath.Join(top, filepath.FromSlash(n))
		if c.secretAbs(abs) != "" {
			secrets = append(secrets, abs)
		}
	}
	return secrets, true
}

// indexNames reads the paths of a git index (versions 2 to 4); ok is
// false for anything else or a truncated file.
func indexNames(data []byte) (names []string, ok bool) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	count := binary.BigEndian.Uint32(data[8:12])
	if version < 2 || version > 4 {
		return nil, false
	}
	pos := 12
	prev := ""
	for range count {
		// ctime, mtime, dev, ino, mode, uid, gid, size: 40 bytes; the
		// object id: 20 (SHA-1; a SHA-256 repository's index is read as
		// not understood); the flags: 2.
		const fixed = 62
		if pos+fixed > len(data) {
			return nil, false
		}
		flags := binary.BigEndian.Uint16(data[pos+60 : pos+62])
		start := pos + fixed
		if version >= 3 && flags&0x4000 != 0 {
			start += 2 // extended flags
		}
		if start > len(data) {
			return nil, false
		}
		var name string
		if version == 4 {
			// The name is the previous one less N bytes (a varint) plus
			// what follows, up to a NUL; no padding.
			strip, n := gitVarint(data[start:])
			if n <= 0 || strip > uint64(len(prev)) {
				return nil, false
			}
			end := bytes.IndexByte(data[start+n:], 0)
			if end < 0 {
				return nil, false
			}
			name = prev[:len(prev)-int(strip)] + string(data[start+n:start+n+end])
			pos = start + n + end + 1
		} else {
			end := bytes.IndexByte(data[start:], 0)
			if end < 0 {
				return nil, false
			}
			name = string(data[start : start+end])
			// Entries are padded with NULs to a multiple of 8 bytes.
			entry := start + end - pos
			pos += (entry + 8) &^ 7
		}
		names = append(names, name)
		prev = name
	}
	return names, true
}

// gitVarint reads git's offset encoding (each continuation adds one
// before shifting); n is 0 for a truncated one.
func gitVarint(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 0x7f)
	n = 1
	for c&0x80 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		c = b[n]
		n++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, n
}
