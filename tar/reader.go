package tar

import (
	"archive/tar"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/inner"
)

// Reader reads a tar archive, plain or compressed, or a compressed single
// file forward-only from a stream (a pipe). The compressor is detected by
// its magic, then the first decoded block tells a tar from a single file.
type Reader struct {
	c     cursor
	kind  compKind
	check string // streamCheck
	bare  bool
	input string // cfg.Name, for a single file's name
	lim   engine.Limits
	n     int // entries returned
	cur   *arc.Entry
	warns []error // dotWarning's, as entries are returned
	err   error
	raw   [blockSize]byte // the input's first bytes, when r cannot peek
	pre   prefixReader
	inner *inner.Format // a compressed single file that is an archive of that format (inner.go)
}

// NewReader starts reading r (positioned at the archive's first byte),
// with the options applied in order (none: default limits, no name).
func NewReader(r io.Reader, opts ...arc.Option) (*Reader, error) {
	cfg, err := conf.New(opts...)
	if err != nil {
		return nil, err
	}
	z := &Reader{lim: cfg.Bounds, input: cfg.Name}
	var first []byte
	src := r
	if pk, ok := r.(interface{ Peek(int) ([]byte, error) }); ok {
		first, _ = pk.Peek(blockSize)
	} else {
		n, err := io.ReadFull(r, z.raw[:])
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, err
		}
		first = z.raw[:n]
		z.pre = prefixReader{buf: first, r: r}
		src = &z.pre
	}
	z.kind = detectKind(first)
	z.check = streamCheck(z.kind, first)
	if z.kind == kindNone && !isHeader(first) {
		return nil, errs.ErrFormat
	}
	m, err := z.c.start(src, -1, z.kind, &z.lim, cfg.Workers, z.c.hb[:])
	if err != nil {
		z.c.close()
		return nil, err
	}
	if z.kind != kindNone && !isHeader(z.c.hb[:m]) {
		z.bare = true
		z.inner = inner.Match(z.c.hb[:m])
		return z, nil
	}
	z.c.openTar()
	return z, nil
}

// FormatName says what was detected (see Archive.FormatName).
func (z *Reader) FormatName() string { return formatName(z.kind, z.bare) }

// StreamCheck names the checksum of the compressed stream that covers
// every entry's content (see Archive.StreamCheck), or "". The Reader
// verifies it where the stream ends: a mismatch there is the error of
// the Next that reaches the end (or of the read that reaches it), after
// the entries before it were returned.
func (z *Reader) StreamCheck() string { return z.check }

// Next advances to the next entry. After the tar archive's end it reads
// the compressed stream to its end, so its checksums are verified before
// io.EOF is returned.
func (z *Reader) Next() (*arc.Entry, error) {
	if z.err != nil {
		return nil, z.err
	}
	z.cur = nil
	if z.bare {
		if z.n == 0 {
			z.n++
			z.cur = bareEntry(z.kind, &z.c.dec, z.input, -1)
			return z.cur, nil
		}
		z.err = z.end()
		return nil, z.err
	}
	for {
		h, err := z.c.tr.Next()
		if err == io.EOF {
			z.err = z.end()
			return nil, z.err
		}
		if err != nil {
			z.err = tarErr(err)
			return nil, z.err
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		if int64(z.n) >= z.lim.MaxEntries {
			z.err = errs.Limit("more than MaxEntries (%d) entries", z.lim.MaxEntries)
			return nil, z.err
		}
		// Only the headers of entries not yet returned are held (the
		// caller may keep Entry values; the Reader keeps none).
		if c := headerCost(h); c > z.lim.MaxHeaderMemory {
			z.err = errs.Limit("a tar header needs more than MaxHeaderMemory (%d bytes)", z.lim.MaxHeaderMemory)
			return nil, z.err
		}
		packed := int64(-1)
		if z.kind == kindNone && !isSparse(h) {
			packed = h.Size
		}
		z.cur = entryOf(h, methodName(z.kind), packed, z.n)
		if w := dotWarning(z.cur); w != nil {
			z.warns = append(z.warns, w)
		}
		z.n++
		return z.cur, nil
	}
}

// end verifies the rest of the stream after the last entry.
func (z *Reader) end() error {
	if err := z.c.drain(z.kind); err != nil {
		return tarErr(err)
	}
	return io.EOF
}

// Warnings reports the entries so far that name the archive's root but
// are no directory (see Archive.Warnings).
func (z *Reader) Warnings() []error { return z.warns }

// Read reads the current entry's content.
func (z *Reader) Read(p []byte) (int, error) {
	if z.cur == nil {
		if z.err != nil && z.err != io.EOF {
			return 0, z.err
		}
		return 0, io.EOF
	}
	var n int
	var err error
	if z.bare {
		n, err = z.c.head.Read(p)
	} else {
		n, err = z.c.tr.Read(p)
	}
	if err != nil && err != io.EOF {
		err = tarErr(err)
		z.err = err
	}
	return n, err
}

// Close returns the decoder to its pool.
func (z *Reader) Close() error {
	z.c.close()
	z.cur = nil
	z.err = errClosed
	return nil
}
