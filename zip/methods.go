package zip

import (
	"errors"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// The method table. Every compression method is one methodSpec, which
// the file implementing it (method_<name>.go) registers from an init
// func: its name, what it needs before anything is read, how to open
// its decoder, and, when it takes checkpoints (seek.go), its kind, how
// to find the decoder of an entry's first pass, how to resume it and
// how large a restored state may be. A nil field is what the method
// cannot do: a method with no open is named, never decoded (Tokenize,
// Terse, Jpeg …), one with no resume is decoded from the entry's start
// on every seek. Archive.Open and the forward Reader decode every method
// the same way through it.
//
// Store, Deflate, Deflate64 and LZMA, the common case, open through
// openChain: their decoders live in the pooled entry state (chain) and
// are reused from entry to entry. The others open through open and are
// closed with the entry.
//
// Adding a method is one new file with its ID, its decoder and one
// register call.

// methodSpec says how one compression method is decoded.
type methodSpec struct {
	name string
	// mem is decoder memory the method needs whatever the entry,
	// checked against MaxMemory after the entry's sizes.
	mem int64
	// check, when set, says before anything is read whether f can be
	// decoded within lim: the fixed decoder memory against MaxMemory, or
	// why not (ErrLimit, ErrUnsupported). Needs that depend on the data
	// (a model size in the stream's own header) are checked by open,
	// before it allocates.
	check func(f *file, lim *engine.Limits) error
	// openChain, for the methods decoded by the pooled entry state,
	// returns the decoded stream of src, keeping its decoder in c (made
	// on first use, also when it fails) for the next entry.
	openChain func(c *chain, src io.Reader, f *file, cfg *arc.Config) (io.Reader, error)
	// open returns the decoded stream of r, the entry's packed data
	// (already decrypted): a bounded source that ends where the packed
	// data does, so a decoder may read ahead. cfg.Bounds are the
	// resolved limits. Close must give back what the decoder holds; the
	// stream is closed exactly once, also when it was not read to the end.
	open func(r io.Reader, f *file, cfg *arc.Config) (io.ReadCloser, error)
	// openShared, when set, is open for a decoder that takes its extra
	// goroutines (up to cfg.Workers) from wp, the pool of a parallel
	// extraction (engine.SharedWorkers).
	openShared func(r io.Reader, f *file, cfg *arc.Config, wp *engine.WorkerPool) (io.ReadCloser, error)
	// bufIn: Archive.Open hands the decoder the entry state's pooled
	// bufio.Reader over the data (Deflate's io.ByteReader, PPMd's input
	// read in place).
	bufIn bool
	// exactEnd: the decoder stops exactly at its stream's end, so the
	// forward Reader needs no packed size to find the next header.
	exactEnd bool
	// workers: the decoder reads cfg.Workers (a parallel extraction
	// hands each entry its share).
	workers bool

	// cpKind is the kind of its checkpoints ("": none); cpInBits says
	// their In counts bits, cpInOff the bytes of the stream's header
	// before it (LZMA).
	cpKind   string
	cpInBits bool
	cpInOff  int64
	// firstPass returns the decoder of an entry opened with c that
	// takes checkpoints, made serial where that matters (nil: none).
	firstPass func(c *chain) cpDecoder
	// resume restarts the decoder from checkpoint x.cp; it returns the
	// decoded stream, the decoder taking the next checkpoints, and
	// whether the decoder checks its own end (BZip2's stream CRC).
	resume func(x *resumeAt) (io.ReadCloser, cpDecoder, bool, error)
	// stateFits checks the size (and flavour) of a restored state; the
	// decoder checks the rest on resuming.
	stateFits func(f *file, st []byte) bool
}

var (
	methods      = map[uint16]*methodSpec{}
	methodByKind = map[string]*methodSpec{}
)

// register adds method id; each method file calls it from init.
func register(id uint16, m *methodSpec) {
	if methods[id] != nil {
		panic("zip: method registered twice: " + m.name)
	}
	methods[id] = m
	if m.cpKind != "" && methodByKind[m.cpKind] == nil {
		methodByKind[m.cpKind] = m // methods sharing a kind share its units
	}
}

// decodes reports whether method m has a decoder.
func (m *methodSpec) decodes() bool { return m != nil && (m.open != nil || m.openChain != nil) }

// methodName names a compression method as 7-Zip lists it.
func methodName(m uint16) string {
	if s := methods[m]; s != nil {
		return s.name
	}
	return "Method" + itoa(int(m))
}

// methodReader is the decoded stream of a registered method: decoder
// errors that are not already the package's sentinels become ErrCorrupt
// (or ErrTruncated), so callers see one error vocabulary.
type methodReader struct {
	rc io.ReadCloser
}

// openMethod opens m's decoder; wp (may be nil) is the worker pool of
// a parallel extraction, for a method that can use it.
func openMethod(m *methodSpec, r io.Reader, f *file, cfg *arc.Config, wp *engine.WorkerPool) (*methodReader, error) {
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
func memCheck(name string, mem int64) func(*file, *engine.Limits) error {
	return func(_ *file, lim *engine.Limits) error {
		if mem > lim.MaxMemory {
			return errs.Limit("%s needs %d bytes of decoder memory, above MaxMemory (%d)", name, mem, lim.MaxMemory)
		}
		return nil
	}
}
