package otlp

import "encoding/binary"

// The protobuf wire format, the part an encoder needs: tags, varints,
// fixed-width numbers and length-delimited bytes. It is a few lines, and
// google.golang.org/protobuf's protowire, which had them, brings its
// internal packages along, one of whose initialisers opens and reads the
// executable at every start of every agentscope process (BENCHMARKS.md,
// memory at start, stop 30).

// fieldNum is a field's number in its message.
type fieldNum int32

// The wire types written.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendTag(b []byte, n fieldNum, wireType int) []byte {
	return appendVarint(b, uint64(n)<<3|uint64(wireType))
}

func appendVarint(b []byte, v uint64) []byte {
	return binary.AppendUvarint(b, v)
}

// sizeVarint is how many bytes appendVarint writes for v.
func sizeVarint(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendFixed32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

func appendFixed64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendBytes(b, v []byte) []byte { return append(appendVarint(b, uint64(len(v))), v...) }

func appendString(b []byte, v string) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}

func encodeBool(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}
