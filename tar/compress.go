package tar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/xz"
	"github.com/go-unarc/unarc/internal/zstdframe"
)

// Kind is the stream compressor around a tar archive or a single file.
type Kind uint8

const (
	None Kind = iota
	Gzip
	Bzip2
	XZ
	Zstd
	Lzip
	LZMA
)

var kindNames = [...]string{"", "gzip", "bzip2", "xz", "zstd", "lzip", "lzma"}
var kindSuffixes = [...]string{"", "gz", "bz2", "xz", "zst", "lz", "lzma"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != None {
		return kindNames[k]
	}
	return "none"
}

// DetectKind names the compressor whose magic starts b (None when b starts
// with none of them). .lzma has no magic: its 13-byte header is
// recognised by a properties byte in range, a dictionary size of the form
// 2^n or 3*2^n that LZMA tools write, a plausible uncompressed size, and
// the zero byte every LZMA range-coded stream starts with.
func DetectKind(b []byte) Kind {
	switch {
	case len(b) >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8:
		return Gzip
	case len(b) >= 4 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9':
		return Bzip2
	case len(b) >= 6 && string(b[:6]) == "\xfd7zXZ\x00":
		return XZ
	case len(b) >= 4 && string(b[:4]) == "\x28\xb5\x2f\xfd":
		return Zstd
	case len(b) >= 4 && b[0]&0xf0 == 0x50 && string(b[1:4]) == "\x2a\x4d\x18":
		return Zstd // a skippable frame (magic 0x184D2A5?) first
	case len(b) >= 5 && string(b[:4]) == "LZIP":
		return Lzip
	case isLZMAHeader(b):
		return LZMA
	}
	return None
}

// streamCheck names the checksum that covers the whole decompressed
// stream of kind whose first bytes are head, as its decoder verifies it
// at the end of each member, block or frame; "" when the stream has none
// (plain tar, .lzma, an xz stream with check None, a zstd frame without
// its content checksum). For xz and zstd the first stream's or frame's
// flags decide (the tools write every stream or frame alike).
func streamCheck(kind Kind, head []byte) string {
	switch kind {
	case Gzip:
		return "gzip CRC32"
	case Bzip2:
		return "bzip2 CRC32"
	case Lzip:
		return "lzip CRC32"
	case XZ:
		if len(head) >= 8 {
			switch head[7] & 0x0f {
			case 0x01:
				return "xz CRC32"
			case 0x04:
				return "xz CRC64"
			case 0x0a:
				return "xz SHA-256"
			}
		}
	case Zstd:
		// The frame header descriptor's Content_Checksum_flag (a stream
		// opening with a skippable frame says nothing).
		if len(head) >= 5 && string(head[:4]) == "\x28\xb5\x2f\xfd" && head[4]&0x04 != 0 {
			return "zstd XXH64"
		}
	}
	return ""
}

func isLZMAHeader(b []byte) bool {
	if len(b) < 14 || b[0] > 224 || b[13] != 0 {
		return false
	}
	d := binary.LittleEndian.Uint32(b[1:5])
	if d < 1<<12 {
		return false
	}
	for d&1 == 0 {
		d >>= 1
	}
	if d != 1 && d != 3 {
		return false
	}
	size := binary.LittleEndian.Uint64(b[5:13])
	return size == ^uint64(0) || size < 1<<48
}

var (
	gzipPool  = pool.Of[gzipStream]{}
	xzPool    = pool.Of[xz.Reader]{}
	lzmaPool  = pool.Of[lzma.Reader]{}
	lzipPool  = pool.Of[lzipReader]{}
	bzip2Pool = pool.Of[bzip2.Reader]{}
	zstdPool  = pool.Of[zstd.Decoder]{New: func() *zstd.Decoder { return newZstd(1) }}
	zstdPool2 = pool.Of[zstd.Decoder]{New: func() *zstd.Decoder { return newZstd(2) }}
)

// zstdExtra bounds what the concurrent zstd decoder holds beyond the
// window: a second block decoder (literals and sequences of a 128 KiB
// block, about 0.5 MiB) and its queues.
const zstdExtra = 1 << 20

// newZstd is a stream decoder with n blocks in flight (1: it decodes on
// the caller's goroutine). Low-memory mode sizes its block buffers to
// the blocks met, not to the largest a frame may hold.
func newZstd(n int) *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(n), zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(err) // the options are constant
	}
	return d
}

// decomp is one decompressor taken from its pool, reading src; Close
// puts it back. Output is counted against the limits in guard.
type decomp struct {
	kind Kind
	rd   io.Reader // the decoder
	gz   *gzipStream
	xz   *xz.Reader
	lz   *lzma.Reader
	lzip *lzipReader
	zs   *zstd.Decoder
	zs2  bool             // zs is from zstdPool2 (concurrent)
	zf   zstdframe.Reader // zs's source: holds each frame's window to the limits (the decoder passes its errors on; with Workers > 1 it reads zf on its own goroutine)
	bz   *bzip2.Reader
	name string    // gzip FNAME
	mod  time.Time // gzip MTIME (copied: the decoder may run on another goroutine)
	err  error     // sticky, mapped to a sentinel
}

// open starts a decoder of kind over src, which holds size bytes (-1:
// unknown), with the limits in lim (resolved with WithDefaults).
func (d *decomp) open(kind Kind, src io.Reader, size int64, lim *arc.Limits, workers int) error {
	return d.openCap(kind, src, size, lim, workers, 0)
}

// openCap is open for a caller that reads no more than the first
// zcap bytes of output (0: all): a zstd frame's window is lowered to
// that (zstdframe.Bound.Cap).
func (d *decomp) openCap(kind Kind, src io.Reader, size int64, lim *arc.Limits, workers int, zcap uint64) error {
	*d = decomp{kind: kind}
	var err error
	switch kind {
	case Gzip:
		d.gz = gzipPool.Get()
		if err = d.gz.reset(src); err == nil {
			d.name, d.mod = d.gz.name, d.gz.mod
		}
		d.rd = d.gz
	case Bzip2:
		d.bz = bzip2Pool.Get()
		err = d.bz.Reset(src, bzip2.MaxMemory(lim.MaxMemory), bzip2.Workers(workers))
		d.rd = d.bz
	case XZ:
		d.xz = xzPool.Get()
		err = d.xz.Reset(src, xz.MaxMemory(lim.MaxMemory), xz.MaxDict(lim.MaxDictionary))
		d.rd = d.xz
	case Zstd:
		// Each frame's window is held to the limits and to what the
		// input can fill before the decoder sees the frame (zstdframe's
		// Bound): the decoder allocates a frame's whole window when the
		// frame starts.
		b := zstdframe.BoundOf(lim, size, 0)
		win := b.MaxWindow
		if zcap > 0 {
			// Detection: any window is lowered, none refused (the
			// stream's own pass refuses it).
			b.MaxWindow, b.Cap = 0, zcap
		}
		// A pooled decoder, Reset per stream (a new one costs its window
		// ring, MiBs). With Workers > 1 it is klauspost's concurrent
		// stream decoder: one goroutine reads the frames and decodes
		// literals, one decodes sequences, one executes them into the
		// window, and the caller's Read hashes (XXH64) and copies out, so
		// the stages overlap on two cores; two blocks in flight are
		// enough to keep that pipeline fed (more adds memory, not speed).
		// It replaces the read-ahead ring (readsAhead), which would only
		// add a copy. Its extra block decoder (about 0.5 MiB) is less
		// than that ring, and counted against MaxMemory (zstdExtra) on top
		// of the window: without room for both, the single-goroutine
		// decoder is used, so a worker count never changes what the
		// limits admit. Close's Reset(nil) waits until the goroutines no
		// longer read the source and returns the blocks.
		if workers > 1 && int64(win) <= lim.MaxMemory-zstdExtra {
			d.zs = zstdPool2.Get()
			d.zs2 = true
		} else {
			d.zs = zstdPool.Get()
		}
		d.zf.SetBound(b)
		d.zf.SetContinuous(true)
		d.zf.Reset(src, false)
		err = d.zs.ResetWithOptions(&d.zf, zstd.WithDecoderMaxWindow(win), zstd.WithDecoderMaxMemory(win))
		d.rd = d.zs
	case Lzip:
		d.lzip = lzipPool.Get()
		err = d.lzip.reset(src, lim.MaxDictionary)
		d.rd = d.lzip
	case LZMA:
		d.lz = lzmaPool.Get()
		err = d.lz.ResetLZMAHeader(src, lzma.MaxDict(min(lim.MaxDictionary, lim.MaxMemory)))
		d.rd = d.lz
	default:
		return errs.Unsupported("compressor %d", kind)
	}
	if err != nil {
		d.err = mapErr(kind, err)
		return d.err
	}
	return nil
}

func (d *decomp) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.rd == nil {
		return 0, errClosed
	}
	n, err := d.rd.Read(p)
	if err != nil {
		d.err = mapErr(d.kind, err)
		err = d.err
	}
	return n, err
}

// Close returns the decoder to its pool.
func (d *decomp) Close() error {
	switch {
	case d.gz != nil:
		d.gz.Close()
		gzipPool.Put(d.gz)
	case d.xz != nil:
		d.xz.Close()
		xzPool.Put(d.xz)
	case d.lz != nil:
		d.lz.Close()
		lzmaPool.Put(d.lz)
	case d.lzip != nil:
		d.lzip.close()
		lzipPool.Put(d.lzip)
	case d.zs != nil:
		d.zs.Reset(nil)
		if d.zs2 {
			zstdPool2.Put(d.zs)
		} else {
			zstdPool.Put(d.zs)
		}
	case d.bz != nil:
		d.bz.Close()
		bzip2Pool.Put(d.bz)
	}
	*d = decomp{err: errClosed}
	return nil
}

var errClosed = errors.New("tar: reader closed")

// mapErr turns a decoder's own errors into exactly one sentinel.
func mapErr(kind Kind, err error) error {
	if err == nil || err == io.EOF || isOurs(err) {
		return err
	}
	switch {
	case err == io.ErrUnexpectedEOF:
		return errs.Truncated(kind.String() + " stream")
	case errors.Is(err, fs.ErrClosed): // the archive's file, closed under a reader
		return fmt.Errorf("%s: %w", kind, err)
	case errors.Is(err, zstd.ErrCRCMismatch):
		return checksumErr("%s", detail(kind, err))
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return errs.Limit("%s (MaxDictionary/MaxMemory)", detail(kind, err))
	}
	return errs.Corrupt("%s", detail(kind, err))
}

// detail is err's message behind the codec's name, once: klauspost's
// errors already start with it ("zstd: ...").
func detail(kind Kind, err error) string {
	name, msg := kind.String(), err.Error()
	if strings.HasPrefix(msg, name+": ") {
		return msg
	}
	return name + ": " + msg
}

func checksumErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errs.ErrChecksum, fmt.Sprintf(format, args...))
}

func isOurs(err error) bool {
	for _, s := range []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
		errs.ErrUnsupported, errs.ErrLimit, errs.ErrPassword, errs.ErrPasswordRequired, errs.ErrInsecurePath} {
		if errors.Is(err, s) {
			return true
		}
	}
	return errors.Is(err, errClosed)
}

// countReader counts what a decoder takes from the source (atomically:
// a decoder reading ahead runs on its own goroutine, the guard reads n).
type countReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// guard bounds one decoded stream by MaxTotalSize and MaxRatio (against
// the compressed bytes really read), whether the bytes are handed to the
// caller or skipped by the tar reader between entries, so a bomb stops
// even while only being listed. The root's account still bounds what
// the caller reads across all entries.
type guard struct {
	r        io.Reader
	in       *countReader
	out      int64
	maxTotal int64
	maxRatio float64
	floor    int64
	err      error // sticky once a limit is passed: a reader that drops the error with its bytes (io.ReadFull) meets it again
}

func (g *guard) reset(r io.Reader, in *countReader, lim *arc.Limits) {
	*g = guard{r: r, in: in, maxTotal: lim.MaxTotalSize, maxRatio: lim.MaxRatio, floor: lim.RatioFloor}
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.out += int64(n)
	if g.out > g.maxTotal || g.out < 0 {
		g.err = errs.Limit("decompressed stream passes MaxTotalSize (%d bytes)", g.maxTotal)
		return n, g.err
	}
	if g.out > g.floor {
		if in := g.in.n.Load(); float64(g.out) > g.maxRatio*float64(in) {
			g.err = errs.Limit("decompressed stream of %d bytes from %d bytes passes MaxRatio (%g)", g.out, in, g.maxRatio)
			return n, g.err
		}
	}
	return n, err
}

// peekCap is the zstd window detection decodes with: the first block
// (at most 128 KiB) needs no more.
const peekCap = 1 << 20

// peekDecoded decodes up to len(buf) bytes of the stream in head (a
// prefix of it) for detection; it returns how many it got.
func peekDecoded(kind Kind, head []byte, buf []byte) int {
	var d decomp
	lim := arc.Limits{}.WithDefaults()
	if d.openCap(kind, bytes.NewReader(head), -1, &lim, 1, peekCap) != nil {
		d.Close()
		return 0
	}
	n, _ := io.ReadFull(&d, buf)
	d.Close()
	return n
}
