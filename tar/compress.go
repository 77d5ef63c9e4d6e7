package tar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// compKind is the stream compressor around a tar archive or a single file.
// Each kind but None has its row in the compressor table
// (compressor.go), registered by its compressor_*.go.
type compKind uint8

const (
	kindNone compKind = iota
	kindGzip
	kindBzip2
	kindXZ
	kindZstd
	kindLzip
	kindLZMA
)

// String is the compressor's name ("gzip", "xz" …), "none" for None or
// an unknown kind.
func (k compKind) String() string {
	if c := compressorOf(k); c != nil {
		return c.name
	}
	return "none"
}

// detectKind names the compressor whose magic starts b (None when b starts
// with none of them). .lzma has no magic: its 13-byte header is
// recognised by a properties byte in range, a dictionary size of the form
// 2^n or 3*2^n that LZMA tools write, a plausible uncompressed size, and
// the zero byte every LZMA range-coded stream starts with.
func detectKind(b []byte) compKind { return sniffKind(b) }

// streamCheck names the checksum that covers the whole decompressed
// stream of kind whose first bytes are head, as its decoder verifies it
// at the end of each member, block or frame; "" when the stream has none
// (plain tar, .lzma, an xz stream with check None, a zstd frame without
// its content checksum).
func streamCheck(kind compKind, head []byte) string {
	if c := compressorOf(kind); c != nil && c.check != nil {
		return c.check(head)
	}
	return ""
}

// decomp is one decompressor taken from its pool, reading src; Close
// puts it back. Output is counted against the limits in guard.
type decomp struct {
	kind compKind
	rd   decoder   // the decoder (its row's open); nil when closed
	name string    // gzip FNAME
	mod  time.Time // gzip MTIME (copied: the decoder may run on another goroutine)
	err  error     // sticky, mapped to a sentinel
}

// open starts a decoder of kind over src, which holds size bytes (-1:
// unknown), with the limits in lim (resolved by conf).
func (d *decomp) open(kind compKind, src io.Reader, size int64, lim *engine.Limits, workers int) error {
	return d.openCap(kind, src, size, lim, workers, 0)
}

// openCap is open for a caller that reads no more than the first
// zcap bytes of output (0: all): a zstd frame's window is lowered to
// that (zstdframe.Bound.Cap).
func (d *decomp) openCap(kind compKind, src io.Reader, size int64, lim *engine.Limits, workers int, zcap uint64) error {
	*d = decomp{kind: kind}
	c := compressorOf(kind)
	if c == nil {
		return unsupported(kind)
	}
	var err error
	if d.rd, err = c.open(d, src, size, lim, workers, zcap); err != nil {
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
	if d.rd != nil {
		d.rd.release()
	}
	*d = decomp{err: errClosed}
	return nil
}

var errClosed = errors.New("tar: reader closed")

// mapErr turns a decoder's own errors into exactly one sentinel.
func mapErr(kind compKind, err error) error {
	if err == nil || err == io.EOF || isOurs(err) {
		return err
	}
	switch {
	case err == io.ErrUnexpectedEOF:
		return errs.Truncated(kind.String() + " stream")
	case errors.Is(err, fs.ErrClosed): // the archive's file, closed under a reader
		return fmt.Errorf("%s: %w", kind, err)
	}
	if c := compressorOf(kind); c != nil && c.mapErr != nil {
		if m := c.mapErr(kind, err); m != nil {
			return m
		}
	}
	return errs.Corrupt("%s", detail(kind, err))
}

// detail is err's message behind the codec's name, once: klauspost's
// errors already start with it ("zstd: ...").
func detail(kind compKind, err error) string {
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

func (g *guard) reset(r io.Reader, in *countReader, lim *engine.Limits) {
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
func peekDecoded(kind compKind, head []byte, buf []byte) int {
	var d decomp
	lim := conf.MustLimits(arc.Limits{}) // the defaults, resolved
	if d.openCap(kind, bytes.NewReader(head), -1, &lim, 1, peekCap) != nil {
		d.Close()
		return 0
	}
	n, _ := io.ReadFull(&d, buf)
	d.Close()
	return n
}
