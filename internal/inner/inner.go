// Package inner is how an archive format found inside a compressed
// stream is read through the tar package's decompressors without either
// package knowing the other: a format that may be compressed whole (cpio:
// an initramfs is a cpio.gz, a cpio.xz …) registers itself here from its
// init, and tar, which detects the compressors, asks Match when the
// decoded content of a stream is no tar archive, before taking it for a
// single compressed file.
//
// inner imports nothing of the module but arc.
package inner

import (
	"io"

	"github.com/go-unarc/unarc/arc"
)

// Stream describes the compressed stream a format is read from.
type Stream struct {
	// Name is the format name to report: the inner format's and the
	// compressor's suffix ("cpio.gz", "cpio.xz").
	Name string
	// Method is the compressor's name, for Entry.Method ("gzip").
	Method string
	// Check names the checksum of the compressed stream that covers
	// every entry ("gzip CRC32"), "" when there is none.
	Check string
}

// Format is a format that may be found inside a compressed stream.
type Format struct {
	// Name is the format's name ("cpio").
	Name string
	// SniffHead reports whether head, the first decoded bytes (at most
	// a tar block, 512 bytes), starts this format.
	SniffHead func(head []byte) bool
	// NewReader reads the format forward from r, the decoded stream;
	// reading r to its end verifies the stream's checks. Closing the
	// Reader closes done, which releases the decoder.
	NewReader func(r io.Reader, done io.Closer, s Stream, cfg *arc.Config) (arc.Reader, error)
	// OpenStream lists the format from the decoded stream that each
	// call of open starts again from its beginning, for random access;
	// done releases the compressed source when the Archive is closed.
	OpenStream func(open func() (io.ReadCloser, error), done io.Closer, s Stream, cfg *arc.Config) (arc.Archive, error)
}

var formats []*Format

// Register adds f, from the format package's init.
func Register(f *Format) { formats = append(formats, f) }

// Match returns the registered format whose SniffHead accepts head, or
// nil.
func Match(head []byte) *Format {
	for _, f := range formats {
		if f.SniffHead(head) {
			return f
		}
	}
	return nil
}
