package tar

import (
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// The compressor table. Every stream compressor around a tar archive (or
// a single file) is one row, which the file implementing it
// (compressor_*.go) registers from its init: how it is recognised,
// its names and file-name suffixes, the checksum covering its stream,
// how to open its decoder within the limits, and, when it takes
// checkpoints (seek.go), how to resume it and how large a restored
// state may be. A nil field is something it cannot do: a compressor
// without stream is decoded from its start on every seek.
//
// Adding a compressor is its compKind constant (compress.go) and one new
// file with its decoder and one register call.

// compressor is one row of the table.
type compressor struct {
	kind compKind
	name string // compKind.String: the single file's format name and the entry's method
	ext  string // the tarball's format name is "tar." + ext

	// suffixes are file-name suffixes (lower case) of the compressor's
	// files and what replaces each in the single file's name
	// (name.tgz → name.tar, name.gz → name).
	suffixes [][2]string

	// sniff reports whether head starts a stream of the compressor;
	// rows are tried in compKind order.
	sniff func(head []byte) bool

	// check names the checksum covering the whole decoded stream whose
	// first bytes are head ("": none); nil: never one.
	check func(head []byte) string

	// open starts a decoder over src, which holds size bytes (-1:
	// unknown), within lim; a caller reading no more than the first
	// zcap bytes of output (0: all) may get a smaller window. It may
	// set d.name and d.mod (gzip's FNAME and MTIME). On error the
	// returned decoder, if not nil, is released.
	open func(d *decomp, src io.Reader, size int64, lim *engine.Limits, workers int, zcap uint64) (decoder, error)

	// aheadWindow, if set, says the decoder runs on one goroutine, so
	// decoding ahead on another overlaps it with the caller's work, and
	// returns the most its window may hold under lim (the read-ahead
	// ring counts against MaxMemory on top of it). nil: the decoder
	// uses Workers itself.
	aheadWindow func(lim *engine.Limits) int64

	// cpKind is the kind of its checkpoints (checkpoint.go); cpInBits
	// says their In counts bits of the input, not bytes.
	cpKind   string
	cpInBits bool

	// stream starts a checkpointing decoder of a's whole stream from its
	// start (cp nil) or from cp, reading in, which starts at input byte
	// at. It returns a decoder to Close even with an error.
	stream func(a *Archive, cp *engine.Checkpoint, in *countReader, at int64) (cpStream, error)

	// cpStateMax bounds a restored checkpoint's state under lim.
	cpStateMax func(lim *engine.Limits) int64

	// mapErr, if set, maps the decoder's own errors that are not the
	// package's sentinels (a checksum, a limit) to one; nil: ErrCorrupt.
	mapErr func(kind compKind, err error) error
}

// decoder is an open decompressor; release gives it back to its pool.
type decoder interface {
	io.Reader
	release()
}

// compressors holds the rows by compKind; None has none.
var compressors []*compressor

// register adds c to the table; a kind registered twice is a
// programming error.
func register(c *compressor) {
	if c.kind == kindNone {
		panic("tar: compressor without a kind")
	}
	for int(c.kind) >= len(compressors) {
		compressors = append(compressors, nil)
	}
	if compressors[c.kind] != nil {
		panic("tar: compressor " + c.name + " registered twice")
	}
	compressors[c.kind] = c
	// The index of a tarball is recorded under the name its Archive
	// reports (FormatName): the registry finds tar's openIndex by it.
	Format.IndexNames = append(Format.IndexNames, formatName(c.kind, false), formatName(c.kind, true))
}

// compressorOf returns k's row, or nil (None, or a kind not registered).
func compressorOf(k compKind) *compressor {
	if int(k) < len(compressors) {
		return compressors[k]
	}
	return nil
}

// sniffKind names the compressor whose stream starts b (None: none).
func sniffKind(b []byte) compKind {
	for _, c := range compressors {
		if c != nil && c.sniff(b) {
			return c.kind
		}
	}
	return kindNone
}

// kinds returns the registered compressors' kinds, in order.
func kinds() []compKind {
	var ks []compKind
	for _, c := range compressors {
		if c != nil {
			ks = append(ks, c.kind)
		}
	}
	return ks
}

// unsupported is the error for a kind without a row.
func unsupported(k compKind) error { return errs.Unsupported("compressor %d", k) }
