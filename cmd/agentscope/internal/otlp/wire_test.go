package otlp

import (
	"bytes"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The hand-written wire helpers write the bytes protowire writes, at the
// edges of every varint length and of the field numbers.
func TestWireMatchesProtowire(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<35 - 1, 1 << 35, 1<<63 - 1, 1 << 63, math.MaxUint64} {
		if got, want := appendVarint(nil, v), protowire.AppendVarint(nil, v); !bytes.Equal(got, want) {
			t.Errorf("varint %d: % x, want % x", v, got, want)
		}
		if got, want := sizeVarint(v), protowire.SizeVarint(v); got != want {
			t.Errorf("size of varint %d: %d, want %d", v, got, want)
		}
		if got, want := appendFixed64(nil, v), protowire.AppendFixed64(nil, v); !bytes.Equal(got, want) {
			t.Errorf("fixed64 %d: % x, want % x", v, got, want)
		}
		if got, want := appendFixed32(nil, uint32(v)), protowire.AppendFixed32(nil, uint32(v)); !bytes.Equal(got, want) {
			t.Errorf("fixed32 %d: % x, want % x", uint32(v), got, want)
		}
	}
	types := map[int]protowire.Type{wireVarint: protowire.VarintType, wireFixed64: protowire.Fixed64Type, wireBytes: protowire.BytesType, wireFixed32: protowire.Fixed32Type}
	for _, n := range []fieldNum{1, 15, 16, 2047, 2048, fieldNum(protowire.MaxValidNumber)} {
		for wt, pt := range types {
			if got, want := appendTag(nil, n, wt), protowire.AppendTag(nil, protowire.Number(n), pt); !bytes.Equal(got, want) {
				t.Errorf("tag %d/%d: % x, want % x", n, wt, got, want)
			}
		}
	}
	for _, s := range []string{"", "a", string(make([]byte, 200))} {
		if got, want := appendString(nil, s), protowire.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("string of %d bytes: % x, want % x", len(s), got, want)
		}
		if got, want := appendBytes(nil, []byte(s)), protowire.AppendBytes(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("bytes of %d: % x, want % x", len(s), got, want)
		}
	}
	if encodeBool(true) != protowire.EncodeBool(true) || encodeBool(false) != protowire.EncodeBool(false) {
		t.Error("encodeBool differs from protowire's")
	}
}
