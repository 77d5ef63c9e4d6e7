// Package fwd is what the cpio and ar readers share: the input a header
// parser reads forward (an io.ReaderAt of known size from a position,
// which skips data by moving it, or a stream through a pooled
// bufio.Reader, which skips data by reading it) and the Entry of a
// member with a Unix mode. An input that ends early is an error matching
// errs.ErrTruncated, named after the format and the part being read.
package fwd

import (
	"archive/tar"
	"bufio"
	"io"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Source is the input at a position.
type Source interface {
	// Full reads len(p) bytes.
	Full(p []byte) error
	// Skip moves n bytes forward.
	Skip(n int64) error
	// Pos is the position in the input.
	Pos() int64
	// Peek returns up to n (at most 512) bytes ahead without consuming
	// them: fewer at the end of the input, none after it.
	Peek(n int) ([]byte, error)
}

// At reads RA, which holds Size bytes, from Off.
type At struct {
	RA   io.ReaderAt
	Size int64
	Off  int64
	Name string // the format, for errors ("cpio")
	buf  [512]byte
}

func (s *At) Full(p []byte) error {
	if int64(len(p)) > s.Size-s.Off {
		return errs.Truncated(s.Name + " header")
	}
	n, err := s.RA.ReadAt(p, s.Off)
	s.Off += int64(n)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return errs.Truncated(s.Name + " header")
	}
	return err
}

func (s *At) Skip(n int64) error {
	if n > s.Size-s.Off {
		s.Off = s.Size
		return errs.Truncated(s.Name + " data")
	}
	s.Off += n
	return nil
}

func (s *At) Pos() int64 { return s.Off }

func (s *At) Peek(n int) ([]byte, error) {
	n = int(min(int64(min(n, len(s.buf))), max(s.Size-s.Off, 0)))
	m, err := s.RA.ReadAt(s.buf[:n], s.Off)
	if m == n {
		err = nil
	}
	return s.buf[:m], err
}

// Stream reads a stream forward, counting what it consumed in Off.
type Stream struct {
	BR     *bufio.Reader
	Off    int64
	Name   string // the format, for errors ("cpio")
	pooled bool
}

// readers are the buffers over streams (4 KiB each), kept between
// archives.
var readers pool.Of[bufio.Reader]

// NewStream reads r: through r itself when it is a *bufio.Reader, else
// through a pooled one that Release gives back.
func NewStream(r io.Reader, name string) *Stream {
	s := &Stream{Name: name}
	s.Reset(r)
	return s
}

// Reset starts s over r (see NewStream), releasing its buffer first.
func (s *Stream) Reset(r io.Reader) {
	s.Release()
	s.Off = 0
	if br, ok := r.(*bufio.Reader); ok {
		s.BR = br
		return
	}
	s.BR, s.pooled = readers.Get(), true
	s.BR.Reset(r)
}

// Release gives back a pooled buffer; s reads nothing more.
func (s *Stream) Release() {
	if s.pooled {
		s.BR.Reset(nil)
		readers.Put(s.BR)
		s.pooled = false
	}
	s.BR = nil
}

func (s *Stream) Full(p []byte) error {
	n, err := io.ReadFull(s.BR, p)
	s.Off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errs.Truncated(s.Name + " header")
	}
	return err
}

func (s *Stream) Skip(n int64) error {
	for n > 0 {
		k, err := s.BR.Discard(int(min(n, 1<<30)))
		s.Off += int64(k)
		n -= int64(k)
		if err == io.EOF {
			return errs.Truncated(s.Name + " data")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Stream) Pos() int64 { return s.Off }

func (s *Stream) Peek(n int) ([]byte, error) {
	b, err := s.BR.Peek(min(n, 512))
	if err == io.EOF || err == bufio.ErrBufferFull {
		err = nil
	}
	return b, err
}

// Read reads entry data (at most len(p) bytes); the stream ending is
// io.EOF, which the caller judges against the size it expects.
func (s *Stream) Read(p []byte) (int, error) {
	n, err := s.BR.Read(p)
	s.Off += int64(n)
	return n, err
}

// SkipRest passes *rem bytes, what is left of the current member's data
// and padding, and clears it: where a parser's next header starts.
func SkipRest(s Source, rem *int64) error {
	if *rem > 0 {
		if err := s.Skip(*rem); err != nil {
			return err
		}
		*rem = 0
	}
	return nil
}

// Unix mode type bits (S_IFMT and its values), as cpio and ar store them.
const (
	TypeMask   = 0o170000
	TypeSocket = 0o140000
	TypeLink   = 0o120000
	TypeReg    = 0o100000
	TypeBlock  = 0o060000
	TypeDir    = 0o040000
	TypeChar   = 0o020000
	TypeFifo   = 0o010000
)

// UnixEntry is the Entry of a member whose header stores a Unix mode
// (type and permission bits; no type bits is a regular file), owner,
// size and modification time: Sys is an *archive/tar.Header holding
// them (Uid, Gid; the caller adds device numbers and link names), as
// tar's entries have, and Mode is what that header's FileInfo says. A
// directory's size is 0; a symlink is a LinkSymlink whose target the
// caller sets.
func UnixEntry(name string, mode int64, uid, gid int, size, mtime int64) *arc.Entry {
	th := &tar.Header{Name: name, Mode: mode & 0o7777, Uid: uid, Gid: gid, Size: size,
		ModTime: time.Unix(mtime, 0), Typeflag: tar.TypeReg}
	e := &arc.Entry{Name: name, Size: size, PackedSize: size, Modified: th.ModTime, Method: "stored", Sys: th}
	switch mode & TypeMask {
	case TypeDir:
		th.Typeflag = tar.TypeDir
		e.Size, e.PackedSize = 0, 0
	case TypeLink:
		th.Typeflag = tar.TypeSymlink
		e.Link = arc.LinkSymlink
	case TypeChar:
		th.Typeflag = tar.TypeChar
	case TypeBlock:
		th.Typeflag = tar.TypeBlock
	case TypeFifo:
		th.Typeflag = tar.TypeFifo
	case TypeSocket:
		th.Mode |= 0o140000 // FileInfo knows a socket by its mode bits
	}
	e.Mode = th.FileInfo().Mode()
	th.Mode &= 0o7777
	return e
}
