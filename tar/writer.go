package tar

import (
	"archive/tar"
	"io"
	"io/fs"
)

// Writer writes a tar archive, plain or inside a stream compressor
// (WithCompression). The headers are archive/tar's: its Writer formats
// them (USTAR when the fields fit, else PAX records for long names and
// link targets, sub-second times, big sizes and IDs, or GNU where the
// Header's Format asks), so code written for archive/tar.Writer ports
// by changing the import and the constructor. Symlinks and hard links
// are stored as links (Typeflag TypeSymlink, TypeLink, with Linkname).
//
// Its methods must not be called concurrently.
type Writer struct {
	tw *tar.Writer
	s  stream
}

// NewWriter returns a Writer of a tar archive to w, compressed as the
// options say (default: a plain tar).
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	z := new(Writer)
	if err := z.s.open(w, opts); err != nil {
		return nil, err
	}
	z.tw = tar.NewWriter(&z.s)
	return z, nil
}

// WriteHeader writes h and prepares to accept the file's contents (at
// most h.Size bytes, through Write), as archive/tar.Writer.WriteHeader.
// The previous file must have been written whole.
func (z *Writer) WriteHeader(h *tar.Header) error { return z.tw.WriteHeader(h) }

// Write writes to the current file; more than its header's Size is
// tar.ErrWriteTooLong.
func (z *Writer) Write(p []byte) (int, error) { return z.tw.Write(p) }

// AddFS adds the files of fsys, walked from its root: directories,
// regular files and, when fsys implements fs.ReadLinkFS (os.DirFS does),
// symlinks stored as links; other file types are an error. Names,
// modes and modification times are those of fsys, as
// archive/tar.Writer.AddFS stores them.
func (z *Writer) AddFS(fsys fs.FS) error { return z.tw.AddFS(fsys) }

// Flush pads the current file, which must be written whole, and makes
// the compressor emit everything written so far (see NewCompressor), so
// a reader of what the destination received sees every entry written.
// The archive's end needs Close.
func (z *Writer) Flush() error {
	if err := z.tw.Flush(); err != nil {
		return err
	}
	return z.s.Flush()
}

// Close writes the archive's end (two zero blocks), then ends the
// compressed stream and gives the encoder back to its pool. It does not
// close the destination. It is an error if the current file is not
// written whole; the encoder goes back all the same.
func (z *Writer) Close() error {
	err := z.tw.Close()
	if cerr := z.s.Close(); err == nil {
		err = cerr
	}
	return err
}
