package agent

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/pycompat"
	"github.com/agentscope-go/agentscope/message"
)

// image is one image of the context and the slot it sits in.
type image struct {
	slot     []block.Block // the content, output or hint list holding it
	idx      int
	d        *block.Data
	topLevel bool
	role     event.Role
}

func isImage(d *block.Data) bool {
	return d != nil && strings.HasPrefix(d.MediaType(), "image/")
}

// eachImage calls f for every image of the context, oldest first, until f
// returns false.
func eachImage(ctx []*message.Msg, f func(im image) bool) {
	for _, m := range ctx {
		for i, b := range m.Content {
			var nested []block.Block
			switch b := b.(type) {
			case *block.Data:
				if isImage(b) && !f(image{m.Content, i, b, true, m.Role}) {
					return
				}
				continue
			case *block.ToolResult:
				nested = b.Output.Blocks
			case *block.Hint:
				nested = b.Hint.Blocks
			default:
				continue
			}
			for j, x := range nested {
				if d, ok := x.(*block.Data); ok && isImage(d) && !f(image{nested, j, d, false, m.Role}) {
					return
				}
			}
		}
	}
}

// limitImages replaces the oldest images beyond cfg.MaxImages by a
// reminder (_limit_context_images): offloaded first (the only I/O), then
// all replaced together, so an error or a cancellation during the
// offloading changes nothing.
func (r *run) limitImages(ctx context.Context, cfg *ContextConfig) error {
	a, st := r.a, r.a.st
	// Counting first: it runs before every reasoning step, and the
	// context rarely holds more images than allowed.
	total := 0
	eachImage(st.Context, func(image) bool { total++; return true })
	limit := max(cfg.MaxImages, 0)
	if total <= limit {
		return nil
	}
	excess := total - limit
	images := make([]image, 0, excess)
	eachImage(st.Context, func(im image) bool {
		images = append(images, im)
		return len(images) < excess
	})
	a.log.Info(fmt.Sprintf("[AGENT %s]: The number of images in context (%d) exceeds the limit (%d), removing the oldest %d image(s).", a.name, total, limit, excess))
	repl := make([]block.Block, excess)
	for i, im := range images[:excess] {
		url := ""
		if u, ok := im.d.Source.(*block.URL); ok {
			url = u.URL
		} else if cfg.Offloader != nil {
			saved, err := cfg.Offloader.OffloadData(ctx, im.d)
			if err != nil {
				return fmt.Errorf("offload an image: %w", err)
			}
			if u, ok := saved.Source.(*block.URL); ok {
				url = u.URL
			}
		}
		text := pycompat.ImageEvicted(im.d.Name.String, url)
		var nb block.Block
		if im.topLevel && im.role != event.RoleUser {
			nb = block.NewHint(text, "")
		} else {
			nb = block.NewText(text)
		}
		block.Fill(nb, a.src)
		repl[i] = nb
	}
	for i, im := range images[:excess] {
		im.slot[im.idx] = repl[i]
	}
	// The blocks were replaced in place: the estimate counts everything
	// again.
	r.a.estWarm = false
	return nil
}

// truncateResult cuts a tool result whose estimated size passes the
// tool-result limit (§3.9, _split_tool_result_for_compression): the
// blocks that fit are kept, the text block on the boundary is cut in
// proportion, the rest goes to the offloader, and a reminder says so. It
// returns res itself when nothing is cut. The events already streamed are
// not affected.
func (r *run) truncateResult(ctx context.Context, res *block.ToolResult) (*block.ToolResult, error) {
	a := r.a
	cfg := &a.ctxCfg
	limit := cfg.ToolResultLimit
	count := func(bs []block.Block) (int, error) {
		m := &message.Msg{Name: a.name, Role: event.RoleAssistant, Content: bs}
		n, err := cfg.TokenCounter.CountTokens(ctx, []*message.Msg{m}, nil)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errCount, err)
		}
		return n, nil
	}
	out := res.Output.Blocks
	if res.Output.Plain {
		out = []block.Block{&block.Text{Text: res.Output.Text}}
	}
	n, err := count(out)
	if err != nil || n <= limit {
		return res, err
	}
	boundary := 0
	for i := len(out) - 1; i > 0; i-- {
		n, err := count(out[:i])
		if err != nil {
			return res, err
		}
		if n < limit {
			boundary = i
			break
		}
	}
	kept := block.CloneList(out[:boundary])
	shed := block.CloneList(out[boundary+1:])
	if t, ok := out[boundary].(*block.Text); ok {
		before, err := count(kept)
		if err != nil {
			return res, err
		}
		after, err := count(append(kept[:len(kept):len(kept)], t))
		if err != nil {
			return res, err
		}
		delta, budget := after-before, limit-before
		runes := utf8.RuneCountInString(t.Text)
		var keepRunes int
		switch {
		case delta <= 0 && budget > 0:
			keepRunes = runes
		case delta <= 0:
			keepRunes = 0
		default:
			keepRunes = int(float64(budget) / float64(delta) * float64(runes))
		}
		keepRunes = max(0, min(runes, keepRunes))
		cut := runeOffset(t.Text, keepRunes)
		keptText, shedText := t.Text[:cut], t.Text[cut:]
		if keptText != "" {
			if lt, ok := lastText(kept); ok {
				lt.Text += keptText
			} else {
				kept = append(kept, &block.Text{ID: t.ID, Text: keptText})
			}
		}
		if shedText != "" {
			if len(shed) > 0 {
				if ft, ok := shed[0].(*block.Text); ok {
					ft.Text = shedText + ft.Text
				} else {
					shed = append([]block.Block{&block.Text{ID: t.ID, Text: shedText}}, shed...)
				}
			} else {
				shed = []block.Block{&block.Text{ID: t.ID, Text: shedText}}
			}
		}
	} else {
		// A block that cannot be cut goes whole.
		shed = append([]block.Block{out[boundary].CloneBlock()}, shed...)
	}
	if len(shed) == 0 {
		return res, nil
	}
	// New result blocks, as the reference builds them: same id, name and
	// state, no metadata.
	keptRes := &block.ToolResult{ID: res.ID, Name: res.Name, Output: block.BlocksBody(kept...), State: res.State}
	shedRes := &block.ToolResult{ID: res.ID, Name: res.Name, Output: block.BlocksBody(shed...), State: res.State}
	block.Fill(shedRes, a.src)
	path := ""
	if cfg.Offloader != nil {
		if path, err = cfg.Offloader.OffloadToolResult(ctx, a.st.SessionID, shedRes); err != nil {
			return res, fmt.Errorf("offload a tool result: %w", err)
		}
	}
	reminder := pycompat.TruncationReminder(path)
	if lt, ok := lastText(keptRes.Output.Blocks); ok {
		lt.Text += reminder
	} else {
		keptRes.Output.Blocks = append(keptRes.Output.Blocks, block.NewText(reminder))
	}
	block.Fill(keptRes, a.src)
	keptRes.FinishedAt = res.FinishedAt
	return keptRes, nil
}

func lastText(bs []block.Block) (*block.Text, bool) {
	if len(bs) == 0 {
		return nil, false
	}
	t, ok := bs[len(bs)-1].(*block.Text)
	return t, ok
}

// runeOffset is the byte offset of the n-th code point of s (Python
// slices strings by code point).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
