package zip

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Reader reads a ZIP archive forward-only from an io.Reader, through the
// local headers; the central directory is not needed (Directory reads
// it at the end, for what only it records).
//
// What a stream cannot tell: Unix modes live only in the central
// directory (unless a local ASi extra field carries one), so until it
// is read symlinks look like regular files whose content is the target,
// and modes are 0644 (0755 for directories); Directory reads it after
// the last entry, so an extractor can fix up what it wrote. Entries written with
// a data descriptor have Size -1 until their data has been read to the
// end; then Size, PackedSize and CRC32 are filled in. Deflate data ends
// where its stream does; stored, LZMA and undecodable data (encrypted,
// unsupported methods) without a size end at the first signed descriptor
// that matches what precedes it.
type Reader struct {
	cfg   arc.Config
	s     *streamState // nil after Close
	cur   *file
	body  io.Reader // current entry's data before verification
	err   error     // sticky: the stream position is lost
	rdErr error     // why the current entry cannot be read
	first bool
	done  bool // at the central directory
	eof   bool // current entry read to its end
	// endSig is the signature that ended the entries; dirRead is set
	// once Directory consumed the central directory (stream_dir.go).
	endSig  uint32
	dirRead bool
	// locals are the local headers gone by, for Directory to compare
	// with the central directory (stream_dir.go); warns are Warnings.
	locals  []localInfo
	warns   []error
	localAt int64 // the current local header's stream offset
	// junk is the length of data skipped before the central directory,
	// warned about at warns[junkWarn] (skipJunk).
	junk     int64
	junkWarn int
	keys     keyCache // WinZip AES key derivations (crypt.go)
}

// streamState is the pooled scratch of a Reader.
type streamState struct {
	chain
	in      input
	dd      descReader
	scan    storedScan
	scratch []byte
	hdr     [localLen]byte
	cnt     countReader // under br: the stream position (stream_dir.go)
	seed    maphash.Seed
}

var streamPool = pool.Of[streamState]{New: func() *streamState {
	return &streamState{chain: chain{br: bufio.NewReaderSize(nil, 64<<10)}, seed: maphash.MakeSeed()}
}}

// input reads from the stream buffer, counting what it hands out and
// stopping after n bytes (n < 0: no limit). It is an io.ByteReader, so
// the deflate decoder consumes exactly the compressed stream and no more.
type input struct {
	br    *bufio.Reader
	n     int64
	count int64
}

func (in *input) Read(p []byte) (int, error) {
	if in.n == 0 {
		return 0, io.EOF
	}
	if in.n > 0 && int64(len(p)) > in.n {
		p = p[:in.n]
	}
	n, err := in.br.Read(p)
	in.count += int64(n)
	if in.n > 0 {
		in.n -= int64(n)
	}
	if err == io.EOF {
		err = errs.Truncated("entry data")
	}
	return n, err
}

func (in *input) ReadByte() (byte, error) {
	if in.n == 0 {
		return 0, io.EOF
	}
	c, err := in.br.ReadByte()
	if err != nil {
		return 0, errs.Truncated("entry data")
	}
	in.count++
	if in.n > 0 {
		in.n--
	}
	return c, nil
}

// Peek, Discard and Buffered make input a peeker for the deflate
// decoder, which then reads whole words from the stream buffer and
// discards exactly what it used: fast, and the position after the
// compressed stream is exact.
func (in *input) Peek(k int) ([]byte, error) {
	if in.n >= 0 && int64(k) > in.n {
		b, err := in.br.Peek(int(in.n))
		if err == nil {
			err = io.EOF
		}
		return b, err
	}
	return in.br.Peek(k)
}

func (in *input) Discard(k int) (int, error) {
	n, err := in.br.Discard(k)
	in.count += int64(n)
	if in.n >= 0 {
		in.n -= int64(n)
	}
	return n, err
}

func (in *input) Buffered() int {
	b := in.br.Buffered()
	if in.n >= 0 && int64(b) > in.n {
		b = int(in.n)
	}
	return b
}

// skip discards the rest of a bounded input.
func (in *input) skip() error {
	if in.n <= 0 {
		return nil
	}
	n, err := in.br.Discard(int(in.n))
	in.count += int64(n)
	in.n -= int64(n)
	if err != nil {
		return errs.Truncated("entry data")
	}
	return nil
}

// NewReader starts reading a ZIP stream from r, positioned at the first
// local header (or at the end record of an empty archive).
func NewReader(r io.Reader, opts ...arc.Option) (*Reader, error) {
	z := &Reader{first: true}
	if err := conf.Apply(&z.cfg, opts...); err != nil {
		return nil, err
	}
	z.s = streamPool.Get()
	z.s.cnt = countReader{r: r}
	z.s.br.Reset(&z.s.cnt)
	z.s.in = input{br: z.s.br}
	b, err := z.s.br.Peek(4)
	if err != nil {
		z.Close()
		return nil, fmt.Errorf("%w: stream too short for a ZIP archive", errs.ErrFormat)
	}
	switch le.Uint32(b) {
	case sigLocal, sigEnd, sigDescriptor, sigSpannedMark:
	default:
		z.Close()
		return nil, fmt.Errorf("%w: no ZIP local header at the start of the stream", errs.ErrFormat)
	}
	return z, nil
}

// Next skips the rest of the current entry and reads the next local
// header. It returns io.EOF at the central directory.
func (z *Reader) Next() (*arc.Entry, error) {
	if z.s == nil {
		return nil, errClosed
	}
	if z.err != nil {
		return nil, z.err
	}
	if z.done {
		return nil, io.EOF
	}
	if z.cur != nil {
		if err := z.skip(); err != nil {
			z.err = err
			return nil, err
		}
	}
	f, err := z.readHeader()
	if err != nil {
		if err != io.EOF {
			z.err = err
		}
		return nil, err
	}
	z.cur = f
	return &f.Entry, nil
}

// skip moves past the rest of the current entry and its descriptor.
func (z *Reader) skip() error {
	f := z.cur
	s := z.s
	if z.eof {
		return nil
	}
	if z.body == nil || s.in.n >= 0 {
		// The end is known from the header: discard without decoding.
		if s.in.n < 0 {
			return fmt.Errorf("%w (cannot find where the streamed entry ends)", z.rdErr)
		}
		if err := s.in.skip(); err != nil {
			return err
		}
		if f.flags&flagDescriptor != 0 {
			if _, _, _, err := z.readDescriptor(); err != nil {
				return err
			}
		}
		return nil
	}
	// Size only in the descriptor: decode or scan to find the end (the
	// descriptor is consumed by the body on the way).
	_, err := io.Copy(io.Discard, z.body)
	return err
}

// readHeader reads the next local header into a new file.
func (z *Reader) readHeader() (*file, error) {
	s := z.s
	z.cur, z.body, z.rdErr, z.eof = nil, nil, nil, false
	for {
		pos := z.pos()
		if _, err := io.ReadFull(s.br, s.hdr[:4]); err != nil {
			return nil, errs.Truncated("no central directory at the end of the stream")
		}
		sig := le.Uint32(s.hdr[:])
		switch sig {
		case sigLocal:
		case sigCentral, sigEnd, sigEnd64:
			z.done, z.endSig = true, sig // Directory reads on from here
			return nil, io.EOF
		case sigDescriptor, sigSpannedMark:
			if z.first {
				// A spanning marker before the first header (APPNOTE 8.5.3).
				z.first = false
				continue
			}
			return nil, errs.Corrupt("unexpected data descriptor signature")
		default:
			if !z.first && z.skipJunk() {
				return nil, io.EOF // at the central directory
			}
			return nil, errs.Corrupt("bad signature %08x where a local header should be", sig)
		}
		z.localAt = pos
		break
	}
	z.first = false
	if _, err := io.ReadFull(s.br, s.hdr[4:]); err != nil {
		return nil, errs.EOF(err, "local header")
	}
	var h header
	nl, el := parseLocal(s.hdr[:], &h)
	if cap(s.scratch) < nl+el {
		s.scratch = make([]byte, nl+el)
	}
	b := s.scratch[:nl+el]
	if _, err := io.ReadFull(s.br, b); err != nil {
		return nil, errs.EOF(err, "local header")
	}
	f := new(file)
	f.fill(&h, b[:nl], b[nl:], nil, z.cfg.DecodeName, z.cfg.Name)
	localUnixMode(f, b[nl:])
	if err := z.noteLocal(f, &h, b[:nl]); err != nil {
		return nil, err
	}
	if f.flags&flagMasked != 0 && f.Encrypted {
		return nil, errs.Unsupported("encrypted central directory (masked local header)")
	}
	dd := f.flags&flagDescriptor != 0
	// With a descriptor the header's CRC and sizes are zero (APPNOTE
	// 4.4.4 bit 3) or placeholders: compressed data ends where its stream
	// does. A plausible packed size a writer gave anyway is used for data
	// we cannot decode (to skip it) and for stored data.
	rdErr := checkOpen(f, &z.cfg)
	plausible := f.csize != 0 && f.csize < 0xffffffff
	// Only Deflate and Deflate64 stop exactly at the end of their stream;
	// every other decoder may read ahead of it, and so does the decryptor
	// of encrypted data (which is then delimited by its sizes or scanned).
	m := methods[f.method]
	ahead := m == nil || !m.exactEnd || rdErr != nil || f.Encrypted
	known := !dd || plausible && ahead
	// Without a size, data that does not end by itself for us (stored,
	// LZMA which reads ahead, anything we cannot decode) ends at the data
	// descriptor, found by scanning.
	scan := dd && !known && ahead
	if dd {
		f.HasCRC32 = false
		f.CRC32 = 0
		if !known || f.usize == 0 {
			f.Size = -1
		}
		if !known {
			f.PackedSize = -1
		}
	}
	s.in.count = 0
	s.in.n = -1
	if known {
		s.in.n = int64(f.csize)
	}
	var src io.Reader = &s.in
	if scan {
		s.scan = storedScan{z: z, packed: f.method != methodStore || rdErr != nil || f.Encrypted}
		src = &s.scan
	}
	if s.oth != nil { // the previous entry's registered-method decoder
		s.oth.Close()
		s.oth = nil
	}
	z.rdErr = rdErr
	raw := src // the packed bytes, to skip them when the entry cannot be read
	s.cr.release()
	if rdErr == nil && f.Encrypted {
		known := int64(-1)
		if s.in.n >= 0 {
			known = s.in.n
		}
		if err := s.cr.start(src, f, known, &z.cfg, &z.keys); err != nil {
			z.rdErr = err
		} else {
			src = &s.cr
		}
	}
	switch {
	case z.rdErr != nil:
	case m.openChain != nil:
		// Deflate reads src, which is s.in (an io.ByteReader, the entry
		// unscanned: it ends by itself) unless the entry is encrypted.
		if body, err := m.openChain(&s.chain, src, f, &z.cfg); err != nil {
			z.rdErr = err
		} else {
			z.body = body
		}
	default:
		oth, err := openMethod(m, src, f, &z.cfg, nil)
		if err != nil {
			z.rdErr = err
		} else {
			s.oth, z.body = oth, oth
		}
	}
	if z.rdErr != nil {
		if scan {
			// Only to skip it: the scan finds the end, the descriptor follows.
			s.dd = descReader{z: z, r: raw}
			z.body = &s.dd
		}
		return f, nil
	}
	if f.Encrypted && f.method != methodStore {
		s.cb = cryptBody{r: z.body, d: &s.cr}
		z.body = &s.cb
	}
	if dd {
		s.dd = descReader{z: z, r: z.body}
		z.body = &s.dd
		if noCRC(f) {
			s.v.ResetHash(z.body, nil, nil, -1)
		} else {
			s.v.ResetCRC32(z.body, 0, -1)
		}
	} else if noCRC(f) {
		s.v.ResetHash(z.body, nil, nil, int64(f.usize))
	} else {
		s.v.ResetCRC32(z.body, f.crc, int64(f.usize))
	}
	return f, nil
}

// Read reads the current entry's content, verified like Archive.Open.
func (z *Reader) Read(p []byte) (int, error) {
	if z.s == nil {
		return 0, errClosed
	}
	if z.cur == nil {
		if z.err != nil {
			return 0, z.err
		}
		return 0, io.EOF
	}
	if z.rdErr != nil {
		return 0, z.rdErr
	}
	n, err := z.s.v.Read(p)
	z.noteEnd(err)
	return n, err
}

// WriteTo writes the current entry's content to w (see Read).
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	if z.s == nil {
		return 0, errClosed
	}
	if z.cur == nil {
		return 0, z.err
	}
	if z.rdErr != nil {
		return 0, z.rdErr
	}
	var n int64
	var err error
	if _, ok := z.body.(io.WriterTo); ok {
		n, err = z.s.v.WriteTo(w)
	} else {
		n, err = pool.Copy(w, &z.s.v)
	}
	if err == nil {
		z.noteEnd(io.EOF)
	} else {
		z.noteEnd(err)
	}
	return n, err
}

// noteEnd records how the current entry's data ended: cleanly (the
// stream position is right after it) or not (it is lost).
func (z *Reader) noteEnd(err error) {
	switch {
	case err == nil:
	case err == io.EOF:
		z.eof = true
		if s := z.s; s.in.n > 0 {
			// Compressed stream ended inside the declared packed size.
			if derr := s.in.skip(); derr != nil {
				z.err = derr
			}
		}
	default:
		// A checksum mismatch leaves the position intact only when the
		// end was found; anything else loses it.
		if z.s.v.N() >= 0 && z.body != nil && z.eofReached() {
			z.eof = true
			return
		}
		z.err = err
	}
}

// eofReached reports whether the body has delivered all of its data.
func (z *Reader) eofReached() bool {
	s := z.s
	if z.cur.flags&flagDescriptor != 0 {
		return s.dd.done
	}
	return s.in.n == 0
}

// Close returns the Reader's scratch; the underlying reader is not closed.
func (z *Reader) Close() error {
	s := z.s
	if s == nil {
		return nil
	}
	z.s = nil
	s.release()
	s.in = input{}
	s.dd, s.scan = descReader{}, storedScan{}
	streamPool.Put(s)
	return nil
}

// readDescriptor reads a data descriptor after an entry's data (APPNOTE
// 4.3.9): an optional signature, the CRC-32 and both sizes, 4 bytes each
// or 8 with Zip64. Which width is tried first depends on whether the
// local header had a Zip64 field; the packed size must then match what
// was consumed.
func (z *Reader) readDescriptor() (crc uint32, csize, usize uint64, err error) {
	defer func() {
		if err == nil {
			z.noteDescriptor(crc, csize, usize)
		}
	}()
	s := z.s
	b, _ := s.br.Peek(4)
	if len(b) == 4 && le.Uint32(b) == sigDescriptor {
		s.br.Discard(4)
	}
	b, perr := s.br.Peek(24)
	if len(b) < 12 {
		return 0, 0, 0, errs.EOF(perr, "data descriptor")
	}
	got := uint64(s.in.count)
	crc = le.Uint32(b)
	// A candidate width fits when its packed size is what was consumed and
	// what follows is the next record's signature (or the stream's end).
	fits := func(n int, c uint64) bool {
		if c != got {
			return false
		}
		if len(b) >= n+2 {
			return b[n] == 'P' && b[n+1] == 'K'
		}
		return len(b) == n
	}
	c64, u64 := uint64(0), uint64(0)
	if len(b) >= 20 {
		c64, u64 = le.Uint64(b[4:]), le.Uint64(b[12:])
	}
	c32, u32 := uint64(le.Uint32(b[4:])), uint64(le.Uint32(b[8:]))
	switch {
	case z.cur.zip64 && len(b) >= 20 && fits(20, c64):
		s.br.Discard(20)
		return crc, c64, u64, nil
	case fits(12, c32):
		s.br.Discard(12)
		return crc, c32, u32, nil
	case len(b) >= 20 && fits(20, c64):
		s.br.Discard(20)
		return crc, c64, u64, nil
	case c32 == got:
		s.br.Discard(12) // a descriptor followed by garbage: the next header read says so
		return crc, c32, u32, nil
	}
	return 0, 0, 0, errs.Corrupt("data descriptor does not match the %d packed bytes read", got)
}

// descReader reads an entry stored with a data descriptor: at the end of
// its data it reads the descriptor and hands the CRC and size to the
// verifier before it sees io.EOF.
type descReader struct {
	z    *Reader
	r    io.Reader
	n    int64 // bytes passed on (AE-2 entries check their size here)
	done bool
}

func (d *descReader) Read(p []byte) (int, error) {
	if d.done {
		return 0, io.EOF
	}
	n, err := d.r.Read(p)
	d.n += int64(n)
	if err != io.EOF {
		return n, err
	}
	z := d.z
	f := z.cur
	if z.s.in.n > 0 {
		if err := z.s.in.skip(); err != nil {
			return n, err
		}
	}
	crc, csize, usize, derr := z.readDescriptor()
	if derr != nil {
		return n, derr
	}
	d.done = true
	f.crc, f.csize, f.usize = crc, csize, usize
	f.HasCRC32, f.CRC32 = true, crc
	f.Size, f.PackedSize = int64(usize), int64(csize)
	if noCRC(f) {
		// AE-2: no CRC (the MAC checked the data); the size still must match.
		f.HasCRC32 = false
		if got := d.n; got != int64(usize) && z.rdErr == nil {
			return n, errs.Truncated(fmt.Sprintf("data ends after %d of %d bytes", got, usize))
		}
		return n, io.EOF
	}
	z.s.v.Expect(crc, int64(usize))
	return n, io.EOF
}

// storedScan reads an entry whose size is only in its data descriptor
// and whose data does not end by itself for us (stored, LZMA, encrypted or
// unsupported): it ends at the first descriptor signature followed by the
// CRC-32 and size of the bytes before it (for data we cannot check the
// CRC of: the packed size, then a header signature). An entry with an
// unsigned descriptor cannot be delimited this way and is reported
// truncated.
type storedScan struct {
	z      *Reader
	crc    uint32
	n      int64
	packed bool // data we do not decode here: match the packed size and the next signature, not the CRC
}

var descSig = []byte{'P', 'K', 7, 8}

// isSignature reports whether b starts with a record that may follow an
// entry: the next local header or the central directory.
func isSignature(b []byte) bool {
	switch le.Uint32(b) {
	case sigLocal, sigCentral, sigEnd, sigEnd64:
		return true
	}
	return false
}

func (sc *storedScan) Read(p []byte) (int, error) {
	s := sc.z.s
	br := s.br
	for {
		buf, perr := br.Peek(br.Size())
		if len(buf) == 0 {
			return 0, errs.Truncated("stored entry without its data descriptor")
		}
		i := bytes.Index(buf, descSig)
		emit := 0
		switch {
		case i < 0:
			if perr != nil {
				return 0, errs.Truncated("stored entry with a data descriptor and no size: no signed descriptor matching its data before the end of the stream (an unsigned one cannot be found)")
			}
			emit = len(buf) - 3 // a signature may straddle the window end
		case i > 0:
			emit = i
		default:
			if len(buf) < 16 && perr == nil {
				emit = 0
			} else if sc.isDescriptor(buf) {
				// Leave the descriptor for descReader; report the end.
				s.in.count = sc.n
				return 0, io.EOF
			} else {
				emit = 1
			}
		}
		if emit == 0 {
			return 0, errs.Truncated("stored entry data descriptor")
		}
		if emit > len(p) {
			emit = len(p)
		}
		n := copy(p, buf[:emit])
		br.Discard(n)
		sc.crc = crc32.Update(sc.crc, crc32.IEEETable, p[:n])
		sc.n += int64(n)
		return n, nil
	}
}

// isDescriptor reports whether b (starting with the signature) is the
// descriptor of the sc.n bytes read so far. For data we decode, that is
// bsdtar's test — the CRC-32 and both sizes of what precedes — and, on
// top of it, a header signature (or the end of the stream) right after
// the descriptor: data that holds a descriptor of its own beginning
// (an archive stored in an archive) does not end the entry there.
func (sc *storedScan) isDescriptor(b []byte) bool {
	n := uint64(sc.n)
	if sc.packed {
		// The CRC is of data we cannot see; the packed size and the
		// header that must follow the descriptor decide.
		return len(b) >= 20 && le.Uint32(b[8:]) == uint32(n) && isSignature(b[16:]) ||
			len(b) >= 28 && le.Uint64(b[8:]) == n && isSignature(b[24:])
	}
	if len(b) < 16 || le.Uint32(b[4:]) != sc.crc {
		return false
	}
	next := func(w int) bool { return len(b) == w || len(b) >= w+4 && isSignature(b[w:]) }
	if le.Uint32(b[8:]) == uint32(n) && le.Uint32(b[12:]) == uint32(n) && next(16) {
		return true
	}
	return len(b) >= 24 && le.Uint64(b[8:]) == n && le.Uint64(b[16:]) == n && next(24)
}
