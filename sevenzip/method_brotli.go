package sevenzip

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/andybalholm/brotli"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Brotli, as 7-Zip-zstd and NanaZip store it, decoded by
// andybalholm/brotli on the caller's goroutine. 7-Zip-zstd writes its
// streams through the zstdmt library, which puts a 16-byte header
// before each brotli stream (one per thread's chunk), little endian:
//
//	magic u32 0x184D2A50 (a zstd skippable frame's), size u32 8,
//	compressed size u32 (the brotli stream that follows),
//	"BR" u16 0x5242, uncompressed size u16 (in 64 KiB units, a hint)
//
// A coder's stream is one or more such frames, or (other writers) one
// bare brotli stream. Properties as ZSTD's (3 or 5 bytes). Large-window
// brotli (window above 16 MiB) is not read: the decoder has no support
// for it, so its memory stays within the 16 MiB window (brotliMemory).
// No checkpoints.

const mBrotli = 0x04F71102

const (
	brFrameMagic = 0x184D2A50
	brFrameSize  = 8 // the skippable frame's content: compressed size, "BR", size hint
	brFrameLen   = 16
	brMagic      = 0x5242
)

// brotliTables is what the decoder holds beside its ring buffer: the
// Huffman tables of a meta-block at their largest (up to 256 trees for
// each of literals, commands and distances, about 1.1 MB each), the
// context maps, the input buffer and the ring buffer's slack.
const brotliTables = 4 << 20

// brotliMaxWindow is the largest window a (not large-window) stream has.
const brotliMaxWindow = 16 << 20

var brotliReaders = pool.Of[brotliReader]{}

func init() {
	register(&method{
		ids:    []uint64{mBrotli},
		name:   "BROTLI",
		label:  levelLabel("BROTLI"),
		memory: brotliMemory,
		open:   openBrotli,
	})
}

// brotliMemory is the coder's window and tables. When the coder reads a
// pack stream directly, its first stream's window (WBITS, in its first
// byte, after the frame header if there is one) is counted, and one above
// MaxDictionary refused before anything is built; behind another coder
// the largest window is counted. Each stream's window is checked against
// MaxDictionary again when it starts (next).
func brotliMemory(a *Archive, si *streamsInfo, f *folder, inBase, _ []int, ci int) (int64, bool, error) {
	if checkZstdProps("BROTLI", &f.coders[ci]) != nil || f.coders[ci].numIn != 1 {
		return -1, false, nil // open reports it
	}
	w := int64(brotliMaxWindow)
	if off, end, ok := a.packRange(si, f, inBase[ci]); ok {
		var b [brFrameLen + 1]byte
		n, _ := a.ra.ReadAt(b[:min(int64(len(b)), max(end-off, 0))], off)
		first := -1
		if n == len(b) && isBrotliFrame(b[:brFrameLen]) {
			first = int(b[brFrameLen])
		} else if n > 0 {
			first = int(b[0])
		}
		if first >= 0 {
			bits, large := brotliWindowBits(byte(first))
			if large {
				return -1, false, nil // open reports it
			}
			w = 1 << bits
		}
	}
	if w > a.cfg.Bounds.MaxDictionary {
		return 0, false, errs.Limit("7z: BROTLI window of %d bytes, above MaxDictionary (%d)", w, a.cfg.Bounds.MaxDictionary)
	}
	return w + brotliTables, false, nil
}

// brotliWindowBits decodes WBITS from a stream's first byte (RFC 7932
// 9.1), or reports the large-window marker.
func brotliWindowBits(b byte) (bits int, large bool) {
	switch {
	case b&1 == 0:
		return 16, false
	case b>>1&7 != 0:
		return 17 + int(b>>1&7), false
	case b>>4&7 == 1:
		return 0, true
	case b>>4&7 != 0:
		return 8 + int(b>>4&7), false
	}
	return 17, false
}

// isBrotliFrame reports whether h (16 bytes) is 7-Zip-zstd's frame header.
func isBrotliFrame(h []byte) bool {
	return binary.LittleEndian.Uint32(h) == brFrameMagic && binary.LittleEndian.Uint32(h[4:]) == brFrameSize &&
		binary.LittleEndian.Uint16(h[12:]) == brMagic
}

// brotliReader decodes a coder's stream: framed brotli streams one after
// the other, or a bare one.
type brotliReader struct {
	br      *brotli.Reader
	src     io.Reader
	in      brotliIn // what br reads: the current stream
	head    [brFrameLen]byte
	framed  bool // the stream is in 7-Zip-zstd's frames
	frames  int
	maxDict int64
	err     error
}

// brotliIn hands out pre (bytes read to look for a header), then lr.
type brotliIn struct {
	pre []byte
	lr  io.LimitedReader
}

func (b *brotliIn) Read(p []byte) (int, error) {
	if len(b.pre) > 0 {
		n := copy(p, b.pre)
		b.pre = b.pre[n:]
		return n, nil
	}
	return b.lr.Read(p)
}

func openBrotli(c *coder, in []io.Reader, _ int64, _ coderPlan, env *decodeEnv) (io.Reader, error) {
	if err := checkZstdProps("BROTLI", c); err != nil {
		return nil, err
	}
	r := brotliReaders.Get()
	r.src, r.frames, r.err, r.maxDict = in[0], 0, nil, env.limits.MaxDictionary
	env.onClose(r)
	if err := r.next(); err != nil {
		return nil, err
	}
	return r, nil
}

// next starts the next brotli stream: it reads a frame header when the
// coder's stream starts with one (then every stream must have one); it
// returns io.EOF at the end of a framed stream.
func (r *brotliReader) next() error {
	n, err := io.ReadFull(r.src, r.head[:])
	if n == 0 && err == io.EOF && r.frames > 0 {
		return io.EOF
	}
	h := r.head[:n]
	isFrame := n == brFrameLen && isBrotliFrame(h)
	switch {
	case r.frames == 0 && !isFrame:
		if err != nil && err != io.ErrUnexpectedEOF {
			return errs.EOF(err, "7z: BROTLI stream")
		}
		// A bare stream: what was read is its start, and it runs to
		// the end of the coder's input.
		r.in = brotliIn{pre: h, lr: io.LimitedReader{R: r.src, N: 1<<63 - 1}}
		r.framed = false
	case !isFrame:
		if err != nil {
			return errs.EOF(err, "7z: BROTLI frame header")
		}
		return errs.Corrupt("7z: BROTLI: no frame header before stream %d", r.frames+1)
	default:
		r.in = brotliIn{lr: io.LimitedReader{R: r.src, N: int64(binary.LittleEndian.Uint32(h[8:]))}}
		r.framed = true
		var b [1]byte
		if _, err := io.ReadFull(&r.in.lr, b[:]); err != nil {
			return errs.EOF(err, "7z: BROTLI stream")
		}
		r.head[0] = b[0]
		r.in.pre = r.head[:1]
	}
	r.frames++
	// Large-window brotli needs a decoder the library does not have;
	// any other window is held to MaxDictionary before the decoder
	// allocates it.
	if len(r.in.pre) > 0 {
		bits, large := brotliWindowBits(r.in.pre[0])
		if large {
			return errs.Unsupported("7z: large-window BROTLI stream")
		}
		if w := int64(1) << bits; w > r.maxDict {
			return errs.Limit("7z: BROTLI window of %d bytes, above MaxDictionary (%d)", w, r.maxDict)
		}
	}
	if r.br == nil {
		r.br = brotli.NewReader(&r.in)
	} else {
		r.br.Reset(&r.in)
	}
	return nil
}

func (r *brotliReader) Read(p []byte) (int, error) {
	for r.err == nil {
		n, err := r.br.Read(p)
		switch {
		case err == nil || n > 0 && err == io.EOF:
			return n, nil
		case err != io.EOF:
			r.err = brotliErr(err)
		default: // this stream ended at its input's end
			if r.framed && r.in.lr.N > 0 {
				r.err = errs.Truncated("7z: BROTLI frame") // the pack stream ended inside it
			} else {
				r.err = r.next()
			}
		}
	}
	return 0, r.err
}

// brotliErr maps the decoder's errors to the sentinels.
func brotliErr(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.Truncated("7z: BROTLI stream")
	case errors.Is(err, errs.ErrCorrupt), errors.Is(err, errs.ErrTruncated), errors.Is(err, errs.ErrPassword):
		return err // the input's own error (a pack reader, 7zAES)
	}
	return errs.Corrupt("7z: BROTLI: %v", err)
}

// Close keeps the decoder (its input buffer and tables) for the next
// BROTLI coder.
func (r *brotliReader) Close() error {
	if r.br != nil {
		r.br.Reset(nil)
	}
	r.src, r.in = nil, brotliIn{}
	brotliReaders.Put(r)
	return nil
}
