package builtin

import (
	"encoding/binary"
	"testing"
)

// A git index is read from a file the model can write: whatever its
// bytes, indexNames returns names or false, never panics or overruns.
func FuzzIndexNames(f *testing.F) {
	entry := func(name string, version int, prev string) []byte {
		b := make([]byte, 62)
		binary.BigEndian.PutUint16(b[60:], uint16(len(name)))
		if version == 4 {
			return append(append(append(b, byte(len(prev))), name...), 0)
		}
		b = append(b, name...)
		for pad := 8 - (len(b) % 8); pad > 0; pad-- {
			b = append(b, 0)
		}
		return b
	}
	for _, v := range []int{2, 4} {
		h := []byte("DIRC\x00\x00\x00\x00\x00\x00\x00\x02")
		h[7] = byte(v)
		h = append(h, entry("a.txt", v, "")...)
		h = append(h, entry("src/.env", v, "a.txt")...)
		names, ok := indexNames(h)
		if !ok || len(names) != 2 || names[1] != "src/.env" {
			f.Fatalf("v%d: %q %v", v, names, ok)
		}
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		names, ok := indexNames(data)
		if !ok && names != nil {
			t.Fatalf("names %q with ok false", names)
		}
	})
}
