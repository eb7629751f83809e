package toolresult

import (
	"testing"

	"github.com/agentscope-go/agentscope/block"
)

func TestFlatten(t *testing.T) {
	if s, p := Flatten(block.PlainBody("40 C"), nil); s != "40 C" || p != nil {
		t.Fatalf("plain: %q %v", s, p)
	}
	img := &block.Data{ID: "img1", Source: block.NewBase64("image/png", "iVBORw0KGgo=")}
	url := &block.Data{ID: "u1", Source: &block.URL{URL: "https://x.test/a.wav", MediaType: "audio/wav"}}
	pdf := &block.Data{ID: "p1", Source: block.NewBase64("application/pdf", "JVBERi0=")}
	body := block.BlocksBody(block.NewText("Here is the map."), img, url, pdf)
	s, p := Flatten(body, Matcher("image/*"))
	want := "Here is the map.\n" +
		"<system-reminder>A(n) image file is returned and will be presented to you with the identifier [img1].</system-reminder>\n" +
		"<system-reminder>A(n) audio file is returned and can be accessed at the URL: https://x.test/a.wav.</system-reminder>\n" +
		"<system-reminder>A(n) application file (application/pdf) is returned but cannot be presented to you.</system-reminder>"
	if s != want {
		t.Fatalf("text\n got %q\nwant %q", s, want)
	}
	if len(p) != 4 {
		t.Fatalf("promoted %d blocks", len(p))
	}
	if p[0].(*block.Text).Text != "<system-reminder>The multimodal data and their identifiers are listed as follows:" ||
		p[1].(*block.Text).Text != "- img1 (image file): " || p[2] != img || p[3].(*block.Text).Text != "</system-reminder>" {
		t.Fatalf("promoted = %v", p)
	}
}

func TestMatcher(t *testing.T) {
	m := Matcher("image/*", "application/pdf")
	for mt, want := range map[string]bool{"image/png": true, "image/jpeg": true, "application/pdf": true, "audio/wav": false, "imagex/png": false} {
		if m(mt) != want {
			t.Errorf("%s: %v", mt, !want)
		}
	}
}
