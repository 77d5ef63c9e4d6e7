// Package zstdframe follows the frames of a Zstandard stream (RFC 8878
// section 3.1) as the stream passes through it to a decoder, so that the
// stream can be decoded one frame at a time. Frames are independent: at a
// frame boundary a decoder holds no state (no window, no entropy tables,
// no repeat offsets), so a checkpoint there is just the two offsets,
// compressed and decompressed, and resuming is a fresh decoder started at
// the compressed one.
//
// Only the framing is parsed here (frame and block headers, skippable
// frames); klauspost/compress's decoder decodes the blocks (Stream).
package zstdframe

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// On-disk layout (RFC 8878 3.1.1, all little endian):
//
//	frame:      magic u32 (0xFD2FB528), frame header descriptor u8,
//	            [window descriptor u8], [dictionary id 0/1/2/4],
//	            [frame content size 0/1/2/4/8], blocks, [checksum u32]
//	block:      header u24: bit 0 last, bits 1-2 type (raw, RLE,
//	            compressed, reserved), bits 3-23 size; then size bytes
//	            (RLE: one byte, repeated size times)
//	skippable:  magic u32 (0x184D2A50 to 0x184D2A5F), size u32, data
const (
	Magic         = 0xFD2FB528
	skipMagic     = 0x184D2A50 // the low 4 bits are free
	skipMask      = 0xFFFFFFF0
	MaxHeaderLen  = 4 + 1 + 1 + 4 + 8
	blockHeadLen  = 3
	checksumLen   = 4
	maxBlockSize  = 128 << 10
	minWindowSize = 1 << 10

	fhdChecksum = 1 << 2
	fhdReserved = 1 << 3
	fhdSingle   = 1 << 5

	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
	blockReserved   = 3
)

// Unknown is Header.ContentSize when the frame does not say it.
const Unknown = ^uint64(0)

// Header is a parsed frame header.
type Header struct {
	Len         int    // bytes, the magic included (6 to 18)
	Window      uint64 // Window_Size (single segment: the content size, 1 KiB at least)
	DictID      uint32
	ContentSize uint64 // Unknown when absent
	Checksum    bool   // a 4-byte XXH64 checksum follows the last block
}

// HeaderLen is the length of the frame header whose descriptor is fhd.
func HeaderLen(fhd byte) int {
	n := 4 + 1
	if fhd&fhdSingle == 0 {
		n++ // window descriptor
	}
	n += [4]int{0, 1, 2, 4}[fhd&3]
	return n + fcsLen(fhd)
}

// fcsLen is the size of the Frame_Content_Size field.
func fcsLen(fhd byte) int {
	if f := fhd >> 6; f != 0 {
		return 1 << f
	}
	if fhd&fhdSingle != 0 {
		return 1
	}
	return 0
}

// ParseHeader parses the frame header that b starts with; b must hold
// HeaderLen(b[4]) bytes at least.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < 5 || binary.LittleEndian.Uint32(b) != Magic {
		return Header{}, errs.Corrupt("zstd: not a frame")
	}
	fhd := b[4]
	h := Header{Len: HeaderLen(fhd), Checksum: fhd&fhdChecksum != 0, ContentSize: Unknown}
	if len(b) < h.Len {
		return Header{}, errs.Truncated("zstd frame header")
	}
	if fhd&fhdReserved != 0 {
		return Header{}, errs.Corrupt("zstd: reserved bit set in the frame header")
	}
	p := b[5:h.Len]
	if fhd&fhdSingle == 0 {
		wd := p[0]
		base := uint64(1) << (10 + wd>>3)
		h.Window = base + base/8*uint64(wd&7)
		p = p[1:]
	}
	switch fhd & 3 {
	case 1:
		h.DictID = uint32(p[0])
		p = p[1:]
	case 2:
		h.DictID = uint32(binary.LittleEndian.Uint16(p))
		p = p[2:]
	case 3:
		h.DictID = binary.LittleEndian.Uint32(p)
		p = p[4:]
	}
	switch len(p) {
	case 1:
		h.ContentSize = uint64(p[0])
	case 2:
		h.ContentSize = uint64(binary.LittleEndian.Uint16(p)) + 256
	case 4:
		h.ContentSize = uint64(binary.LittleEndian.Uint32(p))
	case 8:
		h.ContentSize = binary.LittleEndian.Uint64(p)
	}
	if fhd&fhdSingle != 0 {
		// The window is the content (a decoder needs at least 1 KiB,
		// as klauspost's and the reference decoder take it).
		h.Window = max(h.ContentSize, minWindowSize)
	}
	return h, nil
}

// blockMax is Block_Maximum_Size: the smaller of the window and 128 KiB.
func (h *Header) blockMax() int {
	return int(min(h.Window, maxBlockSize))
}

// Reader passes a Zstandard stream through, following its frames, and
// stops (io.EOF) at each frame boundary after the first frame since
// Reset or Resume, before the next frame's magic, until Resume. The bytes
// it hands out are the stream's, minus skippable frames, which it skips.
// Framing errors are ErrCorrupt, a stream that ends inside a frame is
// ErrTruncated; both are sticky.
type Reader struct {
	r      io.Reader
	off    int64 // bytes taken from r (handed out or skipped)
	at     int64 // the offset of the frame the reader stopped before
	hdr    [MaxHeaderLen]byte
	hp, hn int   // hdr[hp:hn] is still to hand out
	left   int64 // bytes of the current block (and checksum) to pass through
	state  uint8
	strict bool // the next frame must be a Zstandard frame (a resumed stream)
	frames int  // frames begun since Reset or Resume
	head   Header
	err    error
	bound  Bound  // SetBound, kept across Reset
	cont   bool   // SetContinuous, kept across Reset
	ahead  prefix // what fit read ahead of the source (r.r when it did)
}

const (
	stFrame uint8 = iota // at a frame boundary: a magic or the end next
	stBlock              // a block header next
	stStop               // stopped before the frame at r.at
	stEnd                // the stream ended (at a frame boundary)
)

// Reset starts r over src, at a frame boundary. With strict, the first
// thing there must be a Zstandard frame (not a skippable one, not the
// end): a resumed stream is checked so.
func (r *Reader) Reset(src io.Reader, strict bool) {
	keep := r.ahead.all
	if cap(keep) > peekKeep {
		keep = nil
	}
	*r = Reader{r: src, strict: strict, bound: r.bound, cont: r.cont, ahead: prefix{all: keep}}
}

// Offset is the bytes taken from the source so far.
func (r *Reader) Offset() int64 { return r.off }

// Stopped reports whether r stopped at a frame boundary (rather than at
// the stream's end or an error); At is then where the next frame starts.
func (r *Reader) Stopped() bool { return r.state == stStop && r.err == nil }

// At is the source offset of the frame r stopped before.
func (r *Reader) At() int64 { return r.at }

// Err is r's sticky error.
func (r *Reader) Err() error { return r.err }

// Resume lets a stopped r hand out the next frame.
func (r *Reader) Resume() {
	if r.Stopped() {
		r.state, r.frames = stBlock, 1
	}
}

func (r *Reader) Read(p []byte) (int, error) {
	for {
		if r.err != nil {
			return 0, r.err
		}
		if r.state == stStop {
			return 0, io.EOF
		}
		if r.hp < r.hn {
			n := copy(p, r.hdr[r.hp:r.hn])
			r.hp += n
			return n, nil
		}
		if r.left > 0 {
			if int64(len(p)) > r.left {
				p = p[:r.left]
			}
			n, err := r.r.Read(p)
			r.off += int64(n)
			r.left -= int64(n)
			if err == io.EOF && r.left > 0 {
				r.err = errs.Truncated("zstd block")
				err = nil
			} else if err == io.EOF {
				err = nil
			} else if err != nil {
				r.err = err
			}
			if n > 0 || err != nil {
				return n, err
			}
			continue
		}
		switch r.state {
		case stFrame:
			r.nextFrame()
		case stBlock:
			r.nextBlock()
		default:
			return 0, io.EOF
		}
	}
}

// nextFrame reads the next frame's header (skipping skippable frames)
// into hdr, or ends the stream.
func (r *Reader) nextFrame() {
	for {
		at := r.off
		n, err := io.ReadFull(r.r, r.hdr[:4])
		r.off += int64(n)
		if n == 0 && err == io.EOF {
			if r.strict {
				r.err = errs.Corrupt("zstd: no frame at offset %d", at)
				return
			}
			r.state = stEnd
			return
		}
		if err != nil {
			r.err = errs.EOF(err, "zstd frame magic")
			return
		}
		m := binary.LittleEndian.Uint32(r.hdr[:4])
		if m&skipMask == skipMagic && !r.strict {
			r.skip()
			if r.err != nil {
				return
			}
			continue
		}
		if m != Magic {
			r.err = errs.Corrupt("zstd: no frame at offset %d", at)
			return
		}
		r.strict = false
		if _, err := io.ReadFull(r.r, r.hdr[4:5]); err != nil {
			r.err = errs.EOF(err, "zstd frame header")
			return
		}
		hl := HeaderLen(r.hdr[4])
		n, err = io.ReadFull(r.r, r.hdr[5:hl])
		r.off += int64(1 + n)
		if err != nil {
			r.err = errs.EOF(err, "zstd frame header")
			return
		}
		if r.head, r.err = ParseHeader(r.hdr[:hl]); r.err != nil {
			return
		}
		if r.fit(); r.err != nil {
			return
		}
		r.hp, r.hn = 0, hl
		r.state = stBlock
		r.frames++
		if r.frames > 1 && !r.cont {
			r.state, r.at = stStop, at
		}
		return
	}
}

// skip passes over a skippable frame whose magic is read.
func (r *Reader) skip() {
	var b [4]byte
	n, err := io.ReadFull(r.r, b[:])
	r.off += int64(n)
	if err != nil {
		r.err = errs.EOF(err, "zstd skippable frame")
		return
	}
	size := int64(binary.LittleEndian.Uint32(b[:]))
	m, err := io.CopyN(io.Discard, r.r, size)
	r.off += m
	if err != nil {
		r.err = errs.EOF(err, "zstd skippable frame")
	}
}

// nextBlock reads a block header into hdr and sets what follows it.
func (r *Reader) nextBlock() {
	n, err := io.ReadFull(r.r, r.hdr[:blockHeadLen])
	r.off += int64(n)
	if err != nil {
		r.err = errs.EOF(err, "zstd block header")
		return
	}
	bh := uint32(r.hdr[0]) | uint32(r.hdr[1])<<8 | uint32(r.hdr[2])<<16
	last, typ, size := bh&1 != 0, (bh>>1)&3, int(bh>>3)
	if size > r.head.blockMax() {
		r.err = errs.Corrupt("zstd: block of %d bytes, above the frame's maximum %d", size, r.head.blockMax())
		return
	}
	switch typ {
	case blockRLE:
		r.left = 1
	case blockRaw, blockCompressed:
		r.left = int64(size)
	case blockReserved:
		r.err = errs.Corrupt("zstd: reserved block type")
		return
	}
	if last {
		if r.head.Checksum {
			r.left += checksumLen
		}
		r.state = stFrame
	}
	r.hp, r.hn = 0, blockHeadLen
}
