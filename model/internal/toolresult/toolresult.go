package toolresult

import (
	"strings"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/pycompat"
)

// Flatten returns the text of out and, when it holds media that supported
// accepts, the blocks of the user turn that presents them: an opening
// <system-reminder> line, then "- ID (image file): " and the data block for
// each, then the closing tag. Nil when nothing was promoted.
//
// The identifier is the data block's id, so the text is stable across calls
// (the reference draws a random one each time, which defeats prompt caches).
// Unsupported inline data is described, not written to a temporary file as
// the reference does.
func Flatten(out block.Body, supported func(mediaType string) bool) (string, []block.Block) {
	if out.Plain {
		return out.Text, nil
	}
	var text []string
	var promoted []block.Block
	for _, b := range out.Blocks {
		switch b := b.(type) {
		case *block.Text:
			text = append(text, b.Text)
		case *block.Data:
			mt := b.MediaType()
			main, _, _ := strings.Cut(mt, "/")
			switch src := b.Source.(type) {
			case nil:
				continue
			case *block.URL:
				if supported == nil || !supported(mt) {
					text = append(text, pycompat.MediaAtURL(main, src.URL))
					continue
				}
			case *block.Base64:
				if supported == nil || !supported(mt) {
					text = append(text, pycompat.MediaNotPresentable(main, mt))
					continue
				}
			}
			text = append(text, pycompat.MediaPresented(main, b.ID))
			promoted = append(promoted, block.NewText(pycompat.MediaListItem(b.ID, main)), b)
		}
	}
	if promoted != nil {
		promoted = append([]block.Block{block.NewText(pycompat.MediaListOpen)}, promoted...)
		promoted = append(promoted, block.NewText(pycompat.MediaListClose))
	}
	return strings.Join(text, "\n"), promoted
}

// Matcher returns a media-type test for glob patterns such as "image/*" or
// "application/pdf" (the reference's fnmatch over input_types).
func Matcher(patterns ...string) func(string) bool {
	return func(mt string) bool {
		for _, p := range patterns {
			if p == mt || (strings.HasSuffix(p, "/*") && strings.HasPrefix(mt, p[:len(p)-1])) || p == "*/*" {
				return true
			}
		}
		return false
	}
}
