package offload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/message"
)

// Dir offloads into the directory Root, created on first use. The paths it
// returns are absolute, so the model can pass them to a Read tool as they
// are; images get file:// URLs. It is safe for concurrent use.
type Dir struct {
	Root string
}

// ErrSessionID is returned for a session id that cannot name a directory.
var ErrSessionID = errors.New("offload: invalid session id")

func (d Dir) root() (string, error) {
	if d.Root == "" {
		return "", errors.New("offload: Dir.Root is empty")
	}
	return filepath.Abs(d.Root)
}

func (d Dir) sessionDir(sessionID string) (string, error) {
	if sessionID == "" || sessionID == "." || sessionID == ".." || strings.ContainsAny(sessionID, `/\`+"\x00") {
		return "", fmt.Errorf("%w: %q", ErrSessionID, sessionID)
	}
	root, err := d.root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "sessions", sessionID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("offload: %w", err)
	}
	return dir, nil
}

// OffloadToolResult writes the result's text to
// sessions/<session>/tool_result-<id>.txt (tool_result-<id>(1).txt … when
// that exists): text blocks verbatim, a data block as
// <data url='…' name='…' media_type='…'/> after saving it under data/.
func (d Dir) OffloadToolResult(ctx context.Context, sessionID string, res *block.ToolResult) (string, error) {
	dir, err := d.sessionDir(sessionID)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if res.Output.Plain {
		b.WriteString(res.Output.Text)
	}
	for _, x := range res.Output.Blocks {
		switch x := x.(type) {
		case *block.Text:
			b.WriteString(x.Text)
		case *block.Data:
			saved, err := d.OffloadData(ctx, x)
			if err != nil {
				return "", err
			}
			u := ""
			if s, ok := saved.Source.(*block.URL); ok {
				u = s.URL
			}
			// The name is Python's str() of it: None when absent.
			fmt.Fprintf(&b, "<data url='%s' name='%s' media_type='%s'/>", u, x.Name.Or("None"), x.MediaType())
		}
	}
	name := safeName(res.ID)
	for i := 0; ; i++ {
		p := filepath.Join(dir, "tool_result-"+name+".txt")
		if i > 0 {
			p = filepath.Join(dir, "tool_result-"+name+"("+strconv.Itoa(i)+").txt")
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("offload: %w", err)
		}
		_, werr := f.WriteString(b.String())
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", fmt.Errorf("offload: %w", werr)
		}
		return p, nil
	}
}

// OffloadContext appends the messages, one JSON object a line, to
// sessions/<session>/context.jsonl; base64 data blocks at their top level
// are saved under data/ first and written as URL blocks.
func (d Dir) OffloadContext(ctx context.Context, sessionID string, msgs []*message.Msg) (string, error) {
	dir, err := d.sessionDir(sessionID)
	if err != nil {
		return "", err
	}
	var buf []byte
	for _, m := range msgs {
		c := m.Clone()
		for i, x := range c.Content {
			if x, ok := x.(*block.Data); ok {
				if _, isB64 := x.Source.(*block.Base64); isB64 {
					saved, err := d.OffloadData(ctx, x)
					if err != nil {
						return "", err
					}
					c.Content[i] = saved
				}
			}
		}
		buf = append(c.AppendJSON(buf), '\n')
	}
	p := filepath.Join(dir, "context.jsonl")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", fmt.Errorf("offload: %w", err)
	}
	_, werr := f.Write(buf)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("offload: %w", werr)
	}
	return p, nil
}

// OffloadData saves a base64 block's bytes as data/<sha256 of the
// base64>.<ext> (once: the same data is not written again) and returns a
// copy whose source is its file:// URL. A URL block is returned as it is.
func (d Dir) OffloadData(_ context.Context, x *block.Data) (*block.Data, error) {
	src, ok := x.Source.(*block.Base64)
	if !ok {
		return x, nil
	}
	root, err := d.root()
	if err != nil {
		return nil, err
	}
	raw, err := src.Bytes()
	if err != nil {
		return nil, fmt.Errorf("offload: %w", err)
	}
	sum := sha256.Sum256([]byte(src.Data()))
	dir := filepath.Join(root, "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("offload: %w", err)
	}
	p := filepath.Join(dir, hex.EncodeToString(sum[:])+extension(src.MediaType))
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		// Written aside and renamed, so a reader never sees half a file.
		tmp, err := os.CreateTemp(dir, ".tmp-*")
		if err != nil {
			return nil, fmt.Errorf("offload: %w", err)
		}
		_, werr := tmp.Write(raw)
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), p)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("offload: %w", werr)
		}
	}
	u, err := block.NewURL(src.MediaType, (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String())
	if err != nil {
		return nil, fmt.Errorf("offload: %w", err)
	}
	out := x.CloneBlock().(*block.Data)
	out.Source = u
	return out, nil
}

// extension is what Python's mimetypes.guess_extension gives for the
// usual media types, else the system's first, else ".bin".
func extension(mediaType string) string {
	switch mediaType {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "audio/mpeg":
		return ".mp3"
	case "audio/wav", "audio/x-wav":
		return ".wav"
	case "application/pdf":
		return ".pdf"
	case "text/plain":
		return ".txt"
	}
	if exts, _ := mime.ExtensionsByType(mediaType); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}

// safeName keeps a tool-call id usable as part of a file name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, id)
}
