package wiretest

import (
	"errors"
	"testing"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// CheckDecode runs one decoder over arbitrary input and fails on the
// contract's violations: an untyped error, anything yielded after an
// error, a part of unknown kind or without an id. Chunks are folded into
// an Accumulator too, so a panic there is caught as well.
func CheckDecode(t *testing.T, run func(yield func(model.Chunk, error) bool)) {
	acc := model.NewAccumulator(&stamp.Fixed{Time: "t"})
	failed := false
	run(func(c model.Chunk, err error) bool {
		if failed {
			t.Fatalf("yield after an error: %+v %v", c, err)
		}
		if err != nil {
			failed = true
			var me *model.Error
			if !errors.As(err, &me) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return true
		}
		for _, p := range c.Parts {
			if p.Kind < model.PartText || p.Kind > model.PartData || p.ID == "" {
				t.Fatalf("bad part %+v", p)
			}
		}
		_ = acc.Add(c) // invalid base64 data may fail; it must not panic
		return true
	})
}
