package builtin

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/state"
	"github.com/agentscope-go/agentscope/tool"
)

// The read-before-write cache lives in the agent state
// (tool_context.read_file_cache), as in the reference: an entry is the
// file's lines as Read saw them, with the file's modification time then.
// An entry is valid while the file's mtime is unchanged; that is how
// Write and Edit notice a file changed since it was read (an edit
// conflict) — they then refuse as if it was never read.

// cacheMu serialises the built-in tools' cache access: Read is
// concurrency-safe, so several may update one state at once.
var cacheMu sync.Mutex

type cacheEntry struct {
	Lines     json.RawMessage `json:"lines"`
	UpdatedAt float64         `json:"updated_at"`
	Bytes     float64         `json:"bytes"`
	FilePath  string          `json:"file_path"`
}

// stateFrom returns the agent state a state-injected tool was given, or
// nil (a tool called outside an agent keeps no cache).
func stateFrom(ctx context.Context) *state.AgentState {
	st, _ := tool.StateFrom(ctx).(*state.AgentState)
	return st
}

// mtime is Python's os.path.getmtime.
func mtime(path string) (float64, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	t := fi.ModTime()
	return float64(t.Unix()) + float64(t.Nanosecond())*1e-9, true
}

// getCache returns the cached lines of path if the entry is still valid,
// dropping a stale entry (the reference's ToolContext.get_cache).
func getCache(st *state.AgentState, path string) ([]string, bool) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	c := &st.Tools
	for i, raw := range c.ReadFileCache {
		var e cacheEntry
		if json.Unmarshal(raw, &e) != nil || e.FilePath != path {
			continue
		}
		if m, ok := mtime(path); ok && m == e.UpdatedAt {
			var lines []string
			if json.Unmarshal(e.Lines, &lines) == nil {
				return lines, true
			}
		}
		c.ReadFileCache = append(c.ReadFileCache[:i:i], c.ReadFileCache[i+1:]...)
		return nil, false
	}
	return nil, false
}

// cacheFile stores lines for path, evicting the oldest entries beyond
// MaxCacheFiles and MaxCacheBytes (in KB, as the reference counts).
func cacheFile(st *state.AgentState, path string, lines []string) {
	m, ok := mtime(path)
	if !ok {
		return
	}
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	kb := float64(size) / 1024
	entry := appendEntry(nil, lines, m, kb, path)

	cacheMu.Lock()
	defer cacheMu.Unlock()
	c := &st.Tools
	maxFiles, maxBytes := c.MaxCacheFiles, c.MaxCacheBytes
	if maxFiles <= 0 {
		maxFiles = state.DefaultMaxCacheFiles
	}
	if maxBytes <= 0 {
		maxBytes = state.DefaultMaxCacheBytes
	}
	kept := c.ReadFileCache[:0:0]
	var sizes []float64
	for _, raw := range c.ReadFileCache {
		var e struct {
			Bytes    float64 `json:"bytes"`
			FilePath string  `json:"file_path"`
		}
		if json.Unmarshal(raw, &e) == nil && e.FilePath == path {
			continue
		}
		kept = append(kept, raw)
		sizes = append(sizes, e.Bytes)
	}
	for len(kept) >= maxFiles {
		kept, sizes = kept[1:], sizes[1:]
	}
	total := 0.0
	for _, s := range sizes {
		total += s
	}
	for len(kept) > 0 && total+kb > maxBytes {
		total -= sizes[0]
		kept, sizes = kept[1:], sizes[1:]
	}
	c.ReadFileCache = append(kept, entry)
}

// appendEntry writes an entry in the reference's field order.
func appendEntry(dst []byte, lines []string, updatedAt, kb float64, path string) json.RawMessage {
	dst = append(dst, '{')
	dst = wire.AppendKey(dst, "lines")
	dst = append(dst, '[')
	for i, l := range lines {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, l)
	}
	dst = append(dst, "],"...)
	dst = wire.AppendKey(dst, "updated_at")
	dst = wire.AppendFloat(dst, updatedAt)
	dst = append(dst, ',')
	dst = wire.AppendKey(dst, "bytes")
	dst = wire.AppendFloat(dst, kb)
	dst = append(dst, ',')
	dst = wire.AppendKey(dst, "file_path")
	dst = wire.AppendString(dst, path)
	return append(dst, '}')
}
