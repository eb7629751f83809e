package block

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/agentscope-go/agentscope/internal/wire"
	"github.com/agentscope-go/agentscope/stamp"
)

// Source is where a data block's bytes are: *Base64 or *URL.
type Source interface {
	// Media returns the MIME type.
	Media() string
	AppendJSON(dst []byte) []byte
	cloneSource() Source
}

// ErrInvalidBase64 is returned when base64 data cannot be decoded.
var ErrInvalidBase64 = errors.New("invalid base64 data")

// Base64 is inline data. The bytes are kept decoded once they have been
// appended to, and encoded only when JSON is written, so a block that grows
// by thousands of deltas costs O(total bytes), not O(n²).
type Base64 struct {
	MediaType string
	enc       string // the encoded form as given; valid when !decoded
	raw       []byte // the decoded bytes; valid when decoded
	decoded   bool
	// tail is shared by every value copy and records how much of raw's
	// array is taken; an append claims its bytes by moving tail from its
	// own length, so a copy that is behind (taken earlier, or copied back
	// over the source) re-copies instead of overwriting bytes that a
	// longer copy or a slice from Bytes still holds. nil: raw is not ours
	// to append into.
	tail *atomic.Int64
}

func newTail(n int) *atomic.Int64 {
	t := new(atomic.Int64)
	t.Store(int64(n))
	return t
}

// NewBase64 returns a source holding already-encoded data (standard
// alphabet, padded). The text is kept verbatim until bytes are appended.
func NewBase64(mediaType, data string) *Base64 { return &Base64{MediaType: mediaType, enc: data} }

// Base64Bytes returns a source holding raw bytes (not copied).
func Base64Bytes(mediaType string, raw []byte) *Base64 {
	return &Base64{MediaType: mediaType, raw: raw, decoded: true}
}

func (s *Base64) Media() string { return s.MediaType }

// Data returns the base64 text.
func (s *Base64) Data() string {
	if !s.decoded {
		return s.enc
	}
	return base64.StdEncoding.EncodeToString(s.raw)
}

// Bytes returns the decoded bytes. The slice is shared: do not modify it.
func (s *Base64) Bytes() ([]byte, error) {
	if err := s.decode(); err != nil {
		return nil, err
	}
	return s.raw, nil
}

// Len returns the number of decoded bytes if known, else the encoded length.
func (s *Base64) Len() int {
	if s.decoded {
		return len(s.raw)
	}
	return len(s.enc)
}

func (s *Base64) decode() error {
	if s.decoded {
		return nil
	}
	raw, err := decodeBase64(nil, s.enc)
	if err != nil {
		return err
	}
	s.raw, s.decoded, s.enc, s.tail = raw, true, "", newTail(len(raw))
	return nil
}

func decodeBase64(dst []byte, chunk string) ([]byte, error) {
	out, err := base64.StdEncoding.AppendDecode(dst, unsafe.Slice(unsafe.StringData(chunk), len(chunk)))
	if err != nil {
		return dst, fmt.Errorf("%w: %v", ErrInvalidBase64, err)
	}
	return out, nil
}

// AppendBase64 decodes one independently encoded chunk and appends its bytes
// (never string concatenation: every chunk carries its own padding). On error
// the source is unchanged.
func (s *Base64) AppendBase64(chunk string) error {
	if chunk == "" {
		return nil
	}
	if err := s.decode(); err != nil {
		return err
	}
	need := base64.StdEncoding.DecodedLen(len(chunk))
	n := int64(len(s.raw))
	if s.tail == nil || cap(s.raw)-len(s.raw) < need || !s.tail.CompareAndSwap(n, n+int64(need)) {
		// Not ours, behind another copy, or full: take a private array.
		// Doubling keeps a block that grows by thousands of deltas at a
		// total copy cost below twice its size; append's own growth (1.25×
		// for large slices) copies a 12 MB image about five times over.
		grown := make([]byte, len(s.raw), max(2*cap(s.raw), len(s.raw)+need, 512))
		copy(grown, s.raw)
		s.raw, s.tail = grown, newTail(len(s.raw)+need)
	}
	out, err := decodeBase64(s.raw, chunk)
	// Padding makes the chunk decode to fewer bytes than claimed (or none,
	// on error); give the rest back.
	s.tail.Store(int64(len(out)))
	if err != nil {
		return err
	}
	s.raw = out
	return nil
}

func (s *Base64) cloneSource() Source {
	c := *s
	if s.decoded {
		c.raw = append([]byte(nil), s.raw...)
		c.tail = newTail(len(c.raw))
	}
	return &c
}

func (s *Base64) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"base64","data":"`...)
	if s.decoded {
		dst = base64.StdEncoding.AppendEncode(dst, s.raw)
		dst = append(dst, '"')
	} else {
		dst = wire.AppendString(dst[:len(dst)-1], s.enc)
	}
	dst = strField(dst, "media_type", s.MediaType)
	return append(dst, '}')
}

// URL is data referenced by an absolute URL.
type URL struct {
	URL       string
	MediaType string
}

func (s *URL) Media() string { return s.MediaType }

func (s *URL) cloneSource() Source { c := *s; return &c }

func (s *URL) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"url"`...)
	dst = strField(dst, "url", s.URL)
	dst = strField(dst, "media_type", s.MediaType)
	return append(dst, '}')
}

// ErrInvalidURL is returned for a URL source that is not an absolute URL.
var ErrInvalidURL = errors.New("invalid url")

// NewURL validates and normalizes u the way the reference does (an absolute
// URL; scheme and host lower-cased; a bare http(s) host gets a trailing "/").
func NewURL(mediaType, u string) (*URL, error) {
	n, err := NormalizeURL(u)
	if err != nil {
		return nil, err
	}
	return &URL{URL: n, MediaType: mediaType}, nil
}

// NormalizeURL returns u in the reference's serialized form.
func NormalizeURL(u string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrInvalidURL, u, err)
	}
	if p.Scheme == "" {
		return "", fmt.Errorf("%w %q: relative URL without a scheme", ErrInvalidURL, u)
	}
	scheme := strings.ToLower(p.Scheme)
	if (scheme == "http" || scheme == "https") && p.Host == "" {
		return "", fmt.Errorf("%w %q: empty host", ErrInvalidURL, u)
	}
	p.Scheme = scheme
	p.Host = strings.ToLower(p.Host)
	if p.Path == "" && p.Opaque == "" && p.Host != "" {
		p.Path = "/"
	}
	return p.String(), nil
}

// Data is an image, audio, video or other file, inline or by URL.
type Data struct {
	ID         string
	Source     Source
	Name       NullString
	CreatedAt  string
	FinishedAt NullString
}

// NewData returns a data block.
func NewData(src Source) *Data { return &Data{Source: src} }

func (*Data) Kind() Kind        { return KindData }
func (b *Data) BlockID() string { return b.ID }
func (b *Data) fill(src stamp.Source) {
	fillIDTime(&b.ID, &b.CreatedAt, src)
}

func (b *Data) CloneBlock() Block {
	c := *b
	if b.Source != nil {
		c.Source = b.Source.cloneSource()
	}
	return &c
}

// MediaType returns the source's MIME type.
func (b *Data) MediaType() string {
	if b.Source == nil {
		return ""
	}
	return b.Source.Media()
}

func (b *Data) AppendJSON(dst []byte) []byte {
	dst = head(dst, KindData)
	dst = strField(dst, "id", b.ID)
	dst = append(dst, `,"source":`...)
	if b.Source == nil {
		dst = append(dst, "null"...)
	} else {
		dst = b.Source.AppendJSON(dst)
	}
	dst = nullField(dst, "name", b.Name)
	dst = strField(dst, "created_at", b.CreatedAt)
	dst = nullField(dst, "finished_at", b.FinishedAt)
	return append(dst, '}')
}

func (b *Data) MarshalJSON() ([]byte, error) { return marshal(b) }

func (b *Data) UnmarshalJSON(data []byte) error { return unmarshalBlock(b, "data block", data) }

func (b *Data) decodeObject(o *wire.Object) error {
	checkType(o, KindData)
	*b = Data{}
	o.StringOr("id", &b.ID, "")
	o.Nullable("name", &b.Name.String, &b.Name.Valid)
	o.StringOr("created_at", &b.CreatedAt, "")
	o.Nullable("finished_at", &b.FinishedAt.String, &b.FinishedAt.Valid)
	raw, ok := o.Raw("source")
	if !ok || raw == nil {
		o.Fail("source", "required")
	}
	if err := o.Err(); err != nil {
		return err
	}
	src, err := DecodeSource(raw)
	if err != nil {
		return err
	}
	b.Source = src
	fillAbsent(o, &b.ID, &b.CreatedAt)
	return nil
}

// DecodeSource decodes a base64 or url source.
func DecodeSource(data []byte) (Source, error) {
	o, err := wire.Borrow("data source", data)
	if err != nil {
		return nil, err
	}
	defer o.Release()
	var typ, mt string
	o.StringOr("type", &typ, "")
	o.String("media_type", &mt)
	switch typ {
	case "base64":
		var d string
		o.String("data", &d)
		if err := o.Err(); err != nil {
			return nil, err
		}
		return NewBase64(mt, d), nil
	case "url":
		var u string
		o.String("url", &u)
		if err := o.Err(); err != nil {
			return nil, err
		}
		return NewURL(mt, u)
	}
	if err := o.Err(); err != nil {
		return nil, err
	}
	return nil, &wire.FieldError{Type: "data source", Field: "type", Msg: fmt.Sprintf("expected \"base64\" or \"url\", got %q", typ)}
}
