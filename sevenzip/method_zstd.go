package sevenzip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/zstdframe"
)

// Zstandard, as 7-Zip-zstd, NanaZip and py7zr store it: a plain zstd
// stream (one or more frames, skippable frames allowed: the zstdmt
// library of older 7-Zip-zstd versions put one before each frame)
// decoded by klauspost/compress on the caller's goroutine. Properties:
// 3 or 5 bytes (version major, minor, level, two reserved), which the
// decoder does not need. Each frame's window passes zstdframe's bound
// before the decoder sees the frame: above MaxDictionary or what
// MaxMemory leaves is ErrLimit, and it is lowered to the coder's output
// size (the folder takes no more). No checkpoints: a seek decodes the
// folder from its start.

const mZstd = 0x04F71101

// zstdOverhead is what the decoder holds beside the window in
// low-memory mode: two blocks of history, the literals and sequences
// of one 128 KiB block and its tables.
const zstdOverhead = 512 << 10

// zstdMinWindow is the window a decoder always has room for (a frame's
// Block_Maximum_Size, which a lowered window keeps).
const zstdMinWindow = 128 << 10

var (
	zstdDecs    = pool.Of[zstd.Decoder]{New: newZstdDecoder}
	zstdReaders = pool.Of[zstdReader]{}
)

func init() {
	register(&method{
		ids:    []uint64{mZstd},
		name:   "ZSTD",
		label:  levelLabel("ZSTD"),
		memory: zstdMemory,
		open:   openZstd,
	})
}

// levelLabel names a 7-Zip-zstd coder with its level (its properties'
// third byte), as 7-Zip-zstd lists it (ZSTD:19).
func levelLabel(name string) func(c *coder) string {
	return func(c *coder) string {
		if len(c.props) >= 3 && c.props[2] > 0 {
			return name + ":" + strconv.Itoa(int(c.props[2]))
		}
		return name
	}
}

// checkZstdProps: the 7-Zip-zstd family writes 3 or 5 bytes; 7-Zip-zstd
// refuses other sizes, and so do we.
func checkZstdProps(name string, c *coder) error {
	if n := len(c.props); n != 3 && n != 5 {
		return errs.Corrupt("7z: %s with %d property bytes", name, n)
	}
	return nil
}

// zstdMemory is the coder's window and overhead. When the coder reads a
// pack stream directly, its first frame's header is read and that
// frame's window counted (a window above MaxDictionary is ErrLimit
// there, before anything is built); behind another coder (7zAES) the
// window is counted as the output size, MaxDictionary at most. Later
// frames are held to MaxDictionary and MaxMemory as the decoder meets
// them (openZstd).
func zstdMemory(a *Archive, si *streamsInfo, f *folder, inBase, outBase []int, ci int) (int64, bool, error) {
	c := &f.coders[ci]
	if checkZstdProps("ZSTD", c) != nil || c.numIn != 1 {
		return -1, false, nil // open reports it
	}
	size := f.unpackSizes[outBase[ci]]
	lim := &a.cfg.Bounds
	w := max(size, zstdMinWindow)
	if h, ok := a.firstZstdHeader(si, f, inBase[ci]); ok {
		win := h.Window
		if h.ContentSize != zstdframe.Unknown {
			win = min(win, max(h.ContentSize, zstdMinWindow))
		}
		if win > uint64(lim.MaxDictionary) {
			return 0, false, errs.Limit("7z: ZSTD window of %d bytes, above MaxDictionary (%d)", win, lim.MaxDictionary)
		}
		w = min(w, int64(win))
	}
	return min(w, lim.MaxDictionary) + zstdOverhead, false, nil
}

// packRange returns where the pack stream that input in of folder f
// is lies in the archive ([off, end) of a.ra); false when the input
// comes from another coder.
func (a *Archive) packRange(si *streamsInfo, f *folder, in int) (off, end int64, ok bool) {
	for _, bp := range f.bindPairs {
		if bp.in == in {
			return 0, 0, false
		}
	}
	for k, p := range f.packed {
		if p == in {
			pi := f.firstPack + k
			off = a.base + si.packPos + si.packOff[pi]
			return off, off + si.packSizes[pi], true
		}
	}
	return 0, 0, false
}

// firstZstdHeader reads the header of the first zstd frame of the pack
// stream that input in of folder f is, past skippable frames; false
// when the input is not a pack stream or holds no readable header
// (open reports what is wrong with it).
func (a *Archive) firstZstdHeader(si *streamsInfo, f *folder, in int) (zstdframe.Header, bool) {
	off, end, ok := a.packRange(si, f, in)
	if !ok {
		return zstdframe.Header{}, false
	}
	var b [zstdframe.MaxHeaderLen]byte
	for range 4 { // skippable frames first: a few at most
		n, _ := a.ra.ReadAt(b[:min(int64(len(b)), max(end-off, 0))], off)
		if n < 8 {
			return zstdframe.Header{}, false
		}
		m := binary.LittleEndian.Uint32(b[:])
		if m&0xFFFFFFF0 == 0x184D2A50 {
			off += 8 + int64(binary.LittleEndian.Uint32(b[4:]))
			continue
		}
		if m != zstdframe.Magic || n < zstdframe.HeaderLen(b[4]) {
			return zstdframe.Header{}, false
		}
		h, err := zstdframe.ParseHeader(b[:n])
		return h, err == nil
	}
	return zstdframe.Header{}, false
}

func newZstdDecoder() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(err) // the options are constant
	}
	return d
}

// zstdReader is a pooled decoder reading a frame reader that holds
// each frame's window to the bound; it maps the decoder's errors.
type zstdReader struct {
	zd  *zstd.Decoder
	zf  zstdframe.Reader
	err error
}

func openZstd(c *coder, in []io.Reader, size int64, plan coderPlan, env *decodeEnv) (io.Reader, error) {
	if err := checkZstdProps("ZSTD", c); err != nil {
		return nil, err
	}
	b := zstdframe.BoundOf(&env.limits, plan.in, zstdOverhead)
	// The folder takes size bytes of output: a window beyond it is
	// lowered. The folder's ratio judges its declared sizes (a floor
	// of its output size), so the frame's window is judged so too.
	b.Cap = uint64(max(size, 1))
	if lim := env.limits.MaxTotalSize; lim < size {
		b.Cap = uint64(max(lim, 1))
	}
	b.RatioFloor = max(b.RatioFloor, size)
	z := zstdReaders.Get()
	z.zd = zstdDecs.Get()
	z.zf.SetBound(b)
	z.zf.SetContinuous(true)
	z.zf.Reset(in[0], false)
	env.onClose(z)
	if err := z.zd.ResetWithOptions(&z.zf, zstd.WithDecoderMaxWindow(b.MaxWindow), zstd.WithDecoderMaxMemory(b.MaxWindow)); err != nil {
		return nil, z.mapErr(err)
	}
	return z, nil
}

func (z *zstdReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.zd.Read(p)
	if err != nil && err != io.EOF {
		z.err = z.mapErr(err)
		err = z.err
	}
	return n, err
}

// mapErr gives the frame reader's error (the cause) when it has one,
// else the decoder's as the sentinel it means.
func (z *zstdReader) mapErr(err error) error {
	if fe := z.zf.Err(); fe != nil {
		return fe
	}
	switch {
	case errors.Is(err, zstd.ErrCRCMismatch):
		return fmt.Errorf("%w: 7z: ZSTD frame checksum (XXH64)", errs.ErrChecksum)
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return errs.Limit("7z: ZSTD: %v (MaxDictionary, MaxMemory)", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.Truncated("7z: ZSTD stream")
	case errors.Is(err, errs.ErrCorrupt), errors.Is(err, errs.ErrTruncated), errors.Is(err, errs.ErrLimit):
		return err
	}
	return errs.Corrupt("7z: ZSTD: %v", err)
}

// Close returns the decoder and the reader to their pools.
func (z *zstdReader) Close() error {
	if z.zd != nil {
		z.zd.Reset(nil)
		zstdDecs.Put(z.zd)
	}
	z.zf.Reset(nil, false)
	z.zd, z.err = nil, nil
	zstdReaders.Put(z)
	return nil
}
