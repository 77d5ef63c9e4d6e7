package zip

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/deflate"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// errClosed is returned by reads after Close.
var errClosed = errors.New("zip: read after Close")

// section reads [off, end) of an io.ReaderAt. Unlike io.SectionReader it
// lives inside pooled state, so opening an entry allocates nothing, and it
// writes straight to a destination with a pooled buffer.
type section struct {
	ra       io.ReaderAt
	off, end int64
}

func (s *section) Read(p []byte) (int, error) {
	if s.off >= s.end {
		return 0, io.EOF
	}
	if max := s.end - s.off; int64(len(p)) > max {
		p = p[:max]
	}
	n, err := s.ra.ReadAt(p, s.off)
	s.off += int64(n)
	if err == io.EOF {
		if s.off < s.end {
			return n, errs.Truncated("entry data")
		}
		err = nil
	}
	return n, err
}

// WriteTo copies the rest of the section to w.
func (s *section) WriteTo(w io.Writer) (int64, error) { return pool.Copy(w, s) }

// openState is the reusable part of an open entry: input buffer,
// decompressor and verifier. It is pooled, so Open allocates only the
// small handle that guards against use after Close.
type openState struct {
	chain
	sec section
	wt  bool // the body is an io.WriterTo (crc32x passes WriteTo through)
	hdr [localLen]byte
}

// chain is the per-entry reader chain both APIs keep in their pooled
// state: input buffer, decoders (made on first use), decryptor, CRC.
type chain struct {
	br  *bufio.Reader
	dec *deflate.Reader
	lz  *lzma.Reader
	oth *methodReader // the entry's registered-method decoder (methods.go); closed with the entry
	cr  decryptor
	cb  cryptBody
	v   crc32x.Reader
}

// release closes the entry's decoders and forgets its source, keeping
// the buffers for the next entry.
func (c *chain) release() {
	if c.dec != nil {
		c.dec.Close()
	}
	if c.lz != nil {
		c.lz.Close()
	}
	if c.oth != nil {
		c.oth.Close()
		c.oth = nil
	}
	c.cr.release()
	c.cb = cryptBody{}
	c.br.Reset(nil)
	c.v.ResetCRC32(nil, 0, 0)
}

var openPool = pool.Of[openState]{New: func() *openState {
	return &openState{chain: chain{br: bufio.NewReaderSize(nil, 32<<10)}}
}}

// entryReader is what Open returns. Close gives the state back exactly
// once; later reads fail.
type entryReader struct {
	s *openState
}

func (r *entryReader) Read(p []byte) (int, error) {
	if r.s == nil {
		return 0, errClosed
	}
	return r.s.v.Read(p)
}

// WriteTo lets io.Copy move data from the decoder's window without an
// extra buffer.
func (r *entryReader) WriteTo(w io.Writer) (int64, error) {
	if r.s == nil {
		return 0, errClosed
	}
	if r.s.wt {
		return r.s.v.WriteTo(w)
	}
	return pool.Copy(w, &r.s.v)
}

func (r *entryReader) Close() error {
	s := r.s
	if s == nil {
		return nil
	}
	r.s = nil
	s.release()
	s.sec = section{}
	openPool.Put(s)
	return nil
}

// checkOpen says whether entry f can be decoded, before anything is read.
func checkOpen(f *file, cfg *arc.Config) error {
	if f.Encrypted {
		if err := checkCrypt(f, cfg); err != nil {
			return err
		}
	}
	m := methods[f.method]
	if !m.decodes() {
		return errs.Unsupported("compression method %s (%d)", methodName(f.method), f.method)
	}
	if m.check != nil {
		if err := m.check(f, &cfg.Bounds); err != nil {
			return err
		}
	}
	if k := cryptKind(f); f.method == methodStore && k != cryptStrong && f.csize != f.usize+uint64(cryptOverhead(f)) &&
		(f.flags&flagDescriptor == 0 || f.csize != 0 || f.usize != 0) {
		return errs.Corrupt("stored entry with packed size %d but size %d", f.csize, f.usize)
	}
	lim := &cfg.Bounds
	if f.usize > uint64(lim.MaxEntrySize) {
		return errs.Limit("size %d passes MaxEntrySize (%d)", f.usize, lim.MaxEntrySize)
	}
	if m.mem > lim.MaxMemory {
		return errs.Limit("%s needs %d bytes of decoder memory, above MaxMemory (%d)", f.Method, m.mem, lim.MaxMemory)
	}
	return nil
}

// Open returns a reader of entry i's content; reading it to the end
// verifies its size and CRC-32.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(a.files) {
		return nil, fmt.Errorf("zip: entry index %d out of range", i)
	}
	f := &a.files[i]
	if err := checkOpen(f, &a.cfg); err != nil {
		return nil, err
	}
	s := openPool.Get()
	dataOff, err := a.dataOffset(f, s.hdr[:])
	if md, ok := err.(*methodDiffers); ok {
		f, err = a.recoverMethod(i, dataOff, md)
	}
	if err != nil {
		openPool.Put(s)
		return nil, err
	}
	return a.openData(s, f, dataOff)
}

// openData returns a reader of entry f's content, whose data starts at
// dataOff (dataOffset), on the pooled state s (nil: a new one).
func (a *Archive) openData(s *openState, f *file, dataOff int64) (io.ReadCloser, error) {
	var err error
	if s == nil {
		s = openPool.Get()
	}
	s.sec = section{ra: a.ra, off: dataOff, end: dataOff + int64(f.csize)}
	var src io.Reader = &s.sec
	if f.Encrypted {
		if err := s.cr.start(&s.sec, f, int64(f.csize), &a.cfg, &a.keys); err != nil {
			(&entryReader{s: s}).Close()
			return nil, err
		}
		src = &s.cr
	}
	body := src
	m := methods[f.method]
	if m.bufIn {
		// Deflate reads an io.ByteReader, PPMd its input in place from
		// a peekable buffer: the pooled one spares each a buffer of its own.
		s.br.Reset(src)
		src = s.br
	}
	if m.openChain != nil {
		if body, err = m.openChain(&s.chain, src, f, &a.cfg); err != nil {
			(&entryReader{s: s}).Close()
			return nil, err
		}
	} else {
		cfg := &a.cfg
		wp := a.workers.pool.Load()
		if wp == nil || m.openShared == nil {
			wp = nil // a fixed share of the workers (none for a lone entry)
			if n := a.entryWorkerCount(); n != max(cfg.Workers, 1) && m.workers {
				c := a.cfg // only the methods that read Workers get the copy
				c.Workers = n
				cfg = &c
			}
		}
		oth, err := openMethod(m, src, f, cfg, wp)
		if err != nil {
			(&entryReader{s: s}).Close()
			return nil, err
		}
		s.oth, body = oth, oth
	}
	if f.Encrypted && f.method != methodStore {
		s.cb = cryptBody{r: body, d: &s.cr}
		body = &s.cb
	}
	_, s.wt = body.(io.WriterTo)
	if noCRC(f) {
		s.v.ResetHash(body, nil, nil, int64(f.usize))
	} else {
		s.v.ResetCRC32(body, f.crc, int64(f.usize))
	}
	return &entryReader{s: s}, nil
}

// dataOffset reads f's local header (into hdr) to find where its data
// starts: the local name and extra lengths may differ from the central
// ones (APPNOTE 4.3.7). When the local header disagrees with the central
// one on the method alone, the error is a *methodDiffers and the offset
// is returned with it; Open may recover such an entry (recoverMethod),
// every other caller fails on it.
func (a *Archive) dataOffset(f *file, hdr []byte) (int64, error) {
	off := f.headerOff
	if a.missing != nil {
		if err := a.missingErr(f.disk); err != nil {
			return 0, err
		}
	}
	if off < 0 || off > a.size-localLen {
		return 0, errs.Corrupt("local header offset %d outside the archive", off)
	}
	if _, err := a.ra.ReadAt(hdr[:localLen], off); err != nil {
		return 0, errs.EOF(err, "local header")
	}
	if le.Uint32(hdr) != sigLocal {
		return 0, errs.Corrupt("no local header at offset %d", off)
	}
	diff := a.checkLocal(f, hdr)
	if _, ok := diff.(*methodDiffers); diff != nil && !ok {
		return 0, diff
	}
	data := off + localLen + int64(le.Uint16(hdr[26:])) + int64(le.Uint16(hdr[28:]))
	if f.csize > uint64(a.size) || data > a.size-int64(f.csize) {
		return 0, errs.Truncated(fmt.Sprintf("data (%d bytes at %d) beyond the end of the archive", f.csize, data))
	}
	return data, diff // a *methodDiffers comes with the data's offset (Open recovers)
}
