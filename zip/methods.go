package zip

import (
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bzip2"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/zstdframe"
)

// The built-in methods (Store, Deflate, Deflate64, LZMA) live in the pooled
// entry state of open.go and reader.go: they are the common case and reuse
// one decoder per state. Every other method is a methodSpec in this
// registry, added by its own file (method_<name>.go) from an init func, so
// that Archive.Open and the forward Reader decode it the same way.

// methodSpec says how one compression method is decoded.
type methodSpec struct {
	name string
	// check, when set, says before anything is read whether f can be
	// decoded within lim: the fixed decoder memory against MaxMemory, or
	// why not (ErrLimit, ErrUnsupported). Needs that depend on the data
	// (a model size in the stream's own header) are checked by open,
	// before it allocates.
	check func(f *file, lim *arc.Limits) error
	// open returns the decoded stream of r, the entry's packed data
	// (already decrypted): a bounded source that ends where the packed
	// data does, so a decoder may read ahead. cfg.Limits is resolved
	// (WithDefaults). Close must give back what the decoder holds; the
	// stream is closed exactly once, also when it was not read to the end.
	open func(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error)
	// openShared, when set, is open for a decoder that takes its extra
	// goroutines (up to cfg.Workers) from wp, the pool of a parallel
	// extraction (arc.SharedWorkers).
	openShared func(r io.Reader, f *file, cfg *arc.Config, wp *arc.WorkerPool) (io.ReadCloser, error)
}

var methods = map[uint16]*methodSpec{}

// register adds method id; each method file calls it from init.
func register(id uint16, m *methodSpec) {
	if methods[id] != nil {
		panic("zip: method registered twice: " + m.name)
	}
	methods[id] = m
}

// methodReader is the decoded stream of a registered method: decoder
// errors that are not already the package's sentinels become ErrCorrupt
// (or ErrTruncated), so callers see one error vocabulary.
type methodReader struct {
	rc io.ReadCloser
}

// openMethod opens m's decoder; wp (may be nil) is the worker pool of
// a parallel extraction, for a method that can use it.
func openMethod(m *methodSpec, r io.Reader, f *file, cfg *arc.Config, wp *arc.WorkerPool) (*methodReader, error) {
	var rc io.ReadCloser
	var err error
	if wp != nil && m.openShared != nil {
		rc, err = m.openShared(r, f, cfg, wp)
	} else {
		rc, err = m.open(r, f, cfg)
	}
	if err != nil {
		if !isSentinel(err) {
			err = errs.Corrupt("%s: %v", m.name, err)
		}
		return nil, err
	}
	return &methodReader{rc: rc}, nil
}

func (o *methodReader) Read(p []byte) (int, error) {
	if o.rc == nil {
		return 0, errClosed
	}
	n, err := o.rc.Read(p)
	return n, mapMethodErr(err)
}

// mapMethodErr turns a decoder error that is not one of the package's
// sentinels into ErrCorrupt (or ErrTruncated).
func mapMethodErr(err error) error {
	switch {
	case err == nil || err == io.EOF || isSentinel(err):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.Truncated("compressed data")
	}
	return errs.Corrupt("%v", err)
}

// WriteTo passes through to a decoder that writes from its own window,
// else copies with a pooled buffer. Errors of w pass through unchanged,
// so only a decoder's unexpected EOF is mapped here.
func (o *methodReader) WriteTo(w io.Writer) (int64, error) {
	if o.rc == nil {
		return 0, errClosed
	}
	wt, ok := o.rc.(io.WriterTo)
	if !ok {
		return pool.Copy(w, o)
	}
	n, err := wt.WriteTo(w)
	if err != nil && !isSentinel(err) && errors.Is(err, io.ErrUnexpectedEOF) {
		err = errs.Truncated("compressed data")
	}
	return n, err
}

// Close gives back what the decoder holds; later reads fail.
func (o *methodReader) Close() error {
	if o.rc == nil {
		return nil
	}
	err := o.rc.Close()
	o.rc = nil
	return err
}

func isSentinel(err error) bool {
	for _, s := range []error{errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum, errs.ErrLimit, errs.ErrFormat, errs.ErrUnsupported, errs.ErrPassword, errs.ErrPasswordRequired} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// memCheck is the check of a method whose decoder needs mem bytes (at
// least) whatever the entry.
func memCheck(name string, mem int64) func(*file, *arc.Limits) error {
	return func(_ *file, lim *arc.Limits) error {
		if mem > lim.MaxMemory {
			return errs.Limit("%s needs %d bytes of decoder memory, above MaxMemory (%d)", name, mem, lim.MaxMemory)
		}
		return nil
	}
}

// BZip2 comes from our bzip2 package, Zstandard from klauspost/compress
// (APPNOTE 4.4.5: methods 12 and 93; 20 is the deprecated early Zstd id).
const (
	methodBZip2 = 12
	methodZstd  = 93
)

// The bzip2 decoder keeps up to 900,000 uint32s for the block being
// inverted plus its tables; the reader itself checks the level the
// stream declares (and the memory of its workers) against MaxMemory.
const memBZip2 = 900000*4 + 64<<10

// bzip2Readers keeps decoders between entries; Close gives one back.
var bzip2Readers pool.Of[bzip2.Reader]

type bzip2Entry struct{ *bzip2.Reader }

func (b bzip2Entry) Close() error {
	err := b.Reader.Close()
	bzip2Readers.Put(b.Reader)
	return err
}

func openBZip2(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
	return openBZip2Shared(r, f, cfg, nil)
}

// openBZip2Shared decodes up to cfg.Workers blocks at once, the extra
// goroutines each holding a token of wp (nil: the reader's own).
func openBZip2Shared(r io.Reader, f *file, cfg *arc.Config, wp *arc.WorkerPool) (io.ReadCloser, error) {
	z := bzip2Readers.Get()
	opts := [3]bzip2.Option{bzip2.MaxMemory(cfg.Limits.MaxMemory), bzip2.Workers(cfg.Workers), bzip2.Shared(nil)}
	if wp != nil {
		opts[2] = bzip2.Shared(wp)
	}
	if err := z.Reset(r, opts[:]...); err != nil {
		bzip2Readers.Put(z)
		return nil, err
	}
	return bzip2Entry{z}, nil
}

func init() {
	register(methodBZip2, &methodSpec{
		name:       "BZip2",
		check:      memCheck("BZip2", memBZip2),
		open:       openBZip2,
		openShared: openBZip2Shared,
	})
	zs := &methodSpec{name: "Zstd", check: checkZstd, open: openZstd}
	register(methodZstd, zs)
	register(20, zs)
}

// zstdOverhead is what the zstd decoder holds besides its window: two
// blocks of ring space and the block decoder's buffers.
const zstdOverhead = 1 << 20

// zstdMinStreamWindow is the window a streaming zstd encoder (no pledged
// size, as zip writers use it) writes for any input; smaller declared
// entries still get this much, so their archives open.
const zstdMinStreamWindow = 8 << 20

// zstdWindow is the largest zstd window f may use: MaxDictionary, what
// MaxMemory leaves after the decoder's own buffers, and, when the size is
// known, no more than a power of two at or above it (what an encoder that
// knows the size writes) or the streaming default, whichever is larger.
// The decoder allocates its whole window up front, so this bounds memory.
func zstdWindow(f *file, lim *arc.Limits) uint64 {
	w := uint64(min(lim.MaxDictionary, lim.MaxMemory-zstdOverhead, 1<<40))
	if f.Size >= 0 {
		c := uint64(zstdMinStreamWindow)
		for c < f.usize && c < 1<<40 {
			c <<= 1
		}
		w = min(w, c)
	}
	return max(w, zstd.MinWindowSize)
}

func checkZstd(f *file, lim *arc.Limits) error {
	if lim.MaxMemory < zstdOverhead+zstd.MinWindowSize {
		return errs.Limit("zstd needs at least %d bytes of decoder memory, above MaxMemory (%d)", zstdOverhead+zstd.MinWindowSize, lim.MaxMemory)
	}
	return nil
}

// zstdReader maps the window errors to ErrLimit and closes the decoder.
// The decoder is made at the first Read, so that a seekable reader's
// first pass can ask for frame-by-frame decoding (framed) before it.
type zstdReader struct {
	src     io.Reader
	zd      *zstd.Decoder
	fs      *zstdframe.Stream // frame by frame, taking checkpoints
	zf      *zstdframe.Reader // else zd's source, holding each frame to bound (zd passes its errors on)
	window  uint64            // the bound, also for the error message
	lim     *arc.Limits       // MaxRatio, RatioFloor for bound
	maxMem  uint64
	workers int
	err     error
}

func openZstd(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error) {
	lim := &cfg.Limits
	z := &zstdReader{src: r, window: zstdWindow(f, lim), maxMem: uint64(lim.MaxMemory), lim: lim}
	z.workers = zstdWorkers(cfg, z.window)
	return z, nil
}

// zstdOptions are the decoder's bounds (not its concurrency).
func (z *zstdReader) options() []zstd.DOption {
	return []zstd.DOption{zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(z.window), zstd.WithDecoderMaxMemory(z.maxMem)}
}

// framed makes z decode frame by frame on the caller's goroutine
// (zstdframe.Stream), so that it can take checkpoints between frames;
// nil once z has started.
func (z *zstdReader) framed() cpDecoder {
	if z.zd != nil || z.err != nil {
		return nil
	}
	z.fs, z.workers = new(zstdframe.Stream), 1
	return z.fs
}

// start makes the decoder.
func (z *zstdReader) start() error {
	zd, err := zstd.NewReader(nil, append(z.options(), zstd.WithDecoderConcurrency(z.workers))...)
	if err != nil {
		return errs.Corrupt("zstd: %v", err)
	}
	z.zd = zd
	if z.fs != nil {
		z.fs.SetBound(z.bound())
		return z.fs.Reset(zd, z.src, 0, 0, nil)
	}
	z.zf = new(zstdframe.Reader)
	z.zf.SetBound(z.bound())
	z.zf.SetContinuous(true)
	z.zf.Reset(z.src, false)
	return zd.Reset(z.zf)
}

// bound holds each frame's window to z.window before the decoder
// allocates it, and to what the entry's data can fill or, at MaxRatio,
// produce: its source ends with the entry, which the frame reader finds
// by reading ahead. (The root holds the archive's output to MaxRatio as
// a whole; a window, though, serves one entry's output, so one beyond
// what the entry's own bytes may produce is refused.)
func (z *zstdReader) bound() zstdframe.Bound {
	b := zstdframe.Bound{MaxWindow: z.window, Size: -1}
	if z.lim != nil {
		b.MaxRatio, b.RatioFloor = z.lim.MaxRatio, z.lim.RatioFloor
	}
	return b
}

// zstdWorkers is the decoder goroutines an entry may use: Config.Workers,
// fewer if MaxMemory cannot hold each one's buffers beside the window.
func zstdWorkers(cfg *arc.Config, window uint64) int {
	n := max(cfg.Workers, 1)
	if fit := (uint64(cfg.Limits.MaxMemory) - window) / zstdOverhead; uint64(n) > fit {
		n = max(int(fit), 1)
	}
	return n
}

func (z *zstdReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.zd == nil {
		if z.err = z.start(); z.err != nil {
			return 0, z.err
		}
	}
	var (
		n   int
		err error
	)
	if z.fs != nil {
		n, err = z.fs.Read(p)
	} else {
		n, err = z.zd.Read(p)
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		err = errs.Limit("zstd: window above %d bytes (bounded by MaxDictionary, MaxMemory and the entry's size)", z.window)
	}
	return n, err
}

func (z *zstdReader) Close() error {
	if z.zd != nil {
		z.zd.Close()
	}
	z.err = errClosed
	return nil
}
