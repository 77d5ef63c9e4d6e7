package lzma

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-unarc/unarc/internal/errs"
)

// Props are the LZMA model properties: literal context bits (LC), literal
// position bits (LP), position bits (PB) and the dictionary size.
type Props struct {
	LC, LP, PB int
	DictSize   uint32
}

// Property limits (specification, "LZMA properties"). LZMA2 also requires
// LC+LP <= 4.
const (
	maxLC = 8
	maxLP = 4
	maxPB = 4

	// minDictSize is the smallest dictionary a decoder uses: smaller
	// declared sizes are rounded up, as the SDK does.
	minDictSize = 1 << 12
)

// Errors besides the root sentinels. Each wraps one of them, so callers
// match with errors.Is(err, errs.ErrCorrupt) and friends.
var (
	// ErrPastSize: the stream holds more data than its declared
	// uncompressed size (a match or symbols beyond it, or chunks after it).
	ErrPastSize = fmt.Errorf("%w: lzma: data past the declared size", errs.ErrCorrupt)
	// ErrClosed: Read after Close without a Reset.
	ErrClosed = errors.New("lzma: reader closed")
)

// DecodeProps decodes the 5-byte properties block used by 7z coder
// properties, the .lzma header and the ZIP LZMA header: one byte
// (PB*5+LP)*9+LC, then the dictionary size as uint32 little endian.
func DecodeProps(b []byte) (Props, error) {
	if len(b) < 5 {
		return Props{}, errs.Corrupt("lzma: properties are %d bytes, want 5", len(b))
	}
	p, err := decodePropsByte(b[0])
	if err != nil {
		return Props{}, err
	}
	p.DictSize = binary.LittleEndian.Uint32(b[1:5])
	return p, nil
}

// decodePropsByte splits the (PB*5+LP)*9+LC byte.
func decodePropsByte(c byte) (Props, error) {
	if c >= 9*5*5 {
		return Props{}, errs.Corrupt("lzma: properties byte %#x out of range", c)
	}
	d := int(c)
	return Props{LC: d % 9, LP: d / 9 % 5, PB: d / 45}, nil
}

// Encode returns the 5-byte form of p (the inverse of DecodeProps).
func (p Props) Encode() [5]byte {
	var b [5]byte
	b[0] = byte((p.PB*5+p.LP)*9 + p.LC)
	binary.LittleEndian.PutUint32(b[1:], p.DictSize)
	return b
}

// verify checks the ranges of p.
func (p Props) verify() error {
	if p.LC < 0 || p.LC > maxLC || p.LP < 0 || p.LP > maxLP || p.PB < 0 || p.PB > maxPB {
		return errs.Corrupt("lzma: properties lc=%d lp=%d pb=%d out of range", p.LC, p.LP, p.PB)
	}
	return nil
}

// DictSizeLZMA2 decodes the one-byte LZMA2 dictionary size used by 7z and
// xz: 40 means 4 GiB - 1, smaller values b mean (2 | b&1) << (b/2 + 11).
func DictSizeLZMA2(b byte) (int64, error) {
	switch {
	case b > 40:
		return 0, errs.Corrupt("lzma2: dictionary size byte %d out of range", b)
	case b == 40:
		return 1<<32 - 1, nil
	}
	return int64(2|b&1) << (b/2 + 11), nil
}

// Marker says whether an LZMA stream ends with an end marker.
type Marker uint8

const (
	// MarkerAuto: an end marker is required when the size is unknown and
	// allowed (not required) after the last byte of a known size.
	MarkerAuto Marker = iota
	// MarkerRequired: the stream must end with an end marker.
	MarkerRequired
	// MarkerForbidden: the stream must not have an end marker (the size
	// must then be known).
	MarkerForbidden
)

// Option configures a decoder. Options are plain values, so passing them
// to Reset allocates nothing.
type Option struct {
	kind optKind
	v    int64
}

type optKind uint8

const (
	optMaxDict optKind = iota + 1
	optMarker
	optGrow
	optStep
)

// MaxDict limits the window a decoder may allocate to n bytes (0: no
// limit). A stream that needs more fails with an error matching
// errs.ErrLimit before anything is allocated. The window needed is
// min(dictionary size, uncompressed size) when the size is known, else the
// dictionary size.
func MaxDict(n int64) Option { return Option{kind: optMaxDict, v: n} }

// GrowWindow makes the decoder start with a small window and grow it
// (doubling, up to min(dictionary, size)) as output is produced, even
// when the size is known, so a header that declares a large size over a
// small stream costs what the stream really produces. Without it a
// known size allocates the whole window up front.
func GrowWindow() Option { return Option{kind: optGrow, v: 1} }

// StepSize makes the decoder decode at most n bytes (n >= 1) ahead of
// what it has handed out: a Read of at least n bytes then takes all it
// decoded, so the decoder can take a checkpoint after any such Read (7z
// BCJ2 reads its sub-streams this way and checkpoints between fills).
// The default, 256 KiB, keeps data in cache for Read and WriteTo.
func StepSize(n int) Option { return Option{kind: optStep, v: int64(n)} }

// EndMarker sets the end-marker policy of an LZMA decoder (not LZMA2,
// whose framing has its own end).
func EndMarker(m Marker) Option { return Option{kind: optMarker, v: int64(m)} }

// config is what the options set.
type config struct {
	maxDict int64
	marker  Marker
	grow    bool
	step    int // bytes decoded per step; 0: stepMax
}

// stepLen is the output decoded per step.
func (c *config) stepLen() int {
	if c.step > 0 {
		return c.step
	}
	return stepMax
}

// apply resets c and applies opts; a value that cannot be meant (a
// negative MaxDict, an unknown Marker) is an error matching
// errs.ErrInvalidOption. The zero Option sets nothing.
func (c *config) apply(opts []Option) error {
	*c = config{}
	for _, o := range opts {
		switch o.kind {
		case optMaxDict:
			if o.v < 0 {
				return fmt.Errorf("lzma: %w: MaxDict(%d)", errs.ErrInvalidOption, o.v)
			}
			c.maxDict = o.v
		case optMarker:
			if o.v < int64(MarkerAuto) || o.v > int64(MarkerForbidden) {
				return fmt.Errorf("lzma: %w: EndMarker(%d)", errs.ErrInvalidOption, o.v)
			}
			c.marker = Marker(o.v)
		case optGrow:
			c.grow = o.v != 0
		case optStep:
			if o.v < 1 || o.v > stepMax {
				return fmt.Errorf("lzma: %w: StepSize(%d)", errs.ErrInvalidOption, o.v)
			}
			c.step = int(o.v)
		}
	}
	return nil
}
