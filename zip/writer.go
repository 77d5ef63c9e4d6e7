package zip

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/optfn"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// ErrInvalidName is matched (errors.Is) by the error of CreateHeader,
// Create and AddTree for an entry name the Writer refuses (see
// FileHeader.Name). It is unarc.ErrInvalidName.
var ErrInvalidName = errs.ErrInvalidName

// Writer writes a ZIP archive, in the shape of archive/zip.Writer: code
// written for that ports by changing the import. Entries are added in
// order with Create, CreateHeader, CreateRaw or AddFS; the io.Writer
// returned for one entry is valid until the next call of these, Flush
// or Close. Close writes the central directory; it must be called, and
// the archive is complete only when it returns nil. It does not close
// the underlying writer. A Writer is not safe for concurrent use.
//
// An entry's first MiB is held back: an entry that ends within it is
// compressed whole and written with its sizes in the local header,
// stored instead when compressing does not make it smaller (as Info-ZIP
// zip does). A longer entry is judged by its first MiB, compressed and
// flushed: stored when that is not smaller, else compressed to the end
// (LZMA is not judged: its encoder holds back too much to tell). Its
// sizes follow the data: when the output is an io.WriteSeeker whose
// Seek works (an *os.File), the local header is patched in place;
// otherwise a data descriptor follows the data (general purpose flag
// bit 3).
//
// Zip64 fields are written only where a value needs them: an entry of
// 4 GiB or more, an offset beyond 4 GiB, more than 65534 entries. An
// entry that turns out larger than 4 GiB gets a Zip64 data descriptor
// (as archive/zip writes it), unless FileHeader.UncompressedSize64 said
// so beforehand, which puts a Zip64 field in its local header.
//
// Entries that end within the held-back MiB are compressed on
// WithThreads goroutines (one per CPU by default) and written in order;
// a longer Deflate entry is cut into 1 MiB segments compressed apart, as
// pigz does (each primed with the previous one's last 32 KiB), which
// the same goroutines compress.
//
// Given the same entries, times, options and random source
// (WithRandom), a Writer writes the same bytes, whatever the thread
// count.
type Writer struct {
	cfg     writerConfig
	life    archwrite.Lifecycle
	out     output
	st      *wstate
	cur     entry
	gen     int // counts entries, so a stale entry handle is refused
	comment string
}

// output is the archive's sink, buffered and counted.
type output struct {
	bw     *bufio.Writer
	seeker io.WriteSeeker // set when local headers can be patched
	base   int64          // the seeker's offset of the archive's first byte
	off    int64          // bytes of the archive written
}

func (o *output) write(p []byte) error {
	n, err := o.bw.Write(p)
	o.off += int64(n)
	return err
}

// patch overwrites the archive's bytes at off with b and comes back.
func (o *output) patch(off int64, b []byte) error {
	if err := o.bw.Flush(); err != nil {
		return err
	}
	if _, err := o.seeker.Seek(o.base+off, io.SeekStart); err != nil {
		return err
	}
	if _, err := o.seeker.Write(b); err != nil {
		return err
	}
	_, err := o.seeker.Seek(o.base+o.off, io.SeekStart)
	return err
}

// headSize is how much of an entry is held back to choose between
// compressing and storing.
const headSize = 1 << 20

// wstate is a Writer's reusable bookkeeping, buffers and coders, pooled
// across archives so a warm writer allocates little.
type wstate struct {
	recs  []rec
	names map[string]struct{}
	bw    *bufio.Writer
	head  []byte // the entry's first bytes (cap headSize)
	cbuf  []byte // compressed head
	hdr   []byte // header scratch
	enc   encoders
	crypt encryptor
	sw    switchWriter
	job   job // the serial path's
	par   workers
	tail  [segDict]byte // the last bytes of the previous segment
}

// freeStates keeps the states of closed writers for the next.
var freeStates = archwrite.FreeList[wstate]{Max: 4}

func getState() *wstate {
	if st := freeStates.Get(); st != nil {
		return st
	}
	return &wstate{names: make(map[string]struct{})}
}

func putState(st *wstate) {
	if !freeStates.Put(st) {
		st.par.stop() // not kept: its workers end
	}
}

// switchWriter is what a compressor writes to: the compressed head's
// buffer first, the output once the entry is written.
type switchWriter struct {
	buf *[]byte   // when w is nil
	w   io.Writer // the encryptor, or the output
}

func (s *switchWriter) Write(p []byte) (int, error) {
	if s.w == nil {
		*s.buf = append(*s.buf, p...)
		return len(p), nil
	}
	return s.w.Write(p)
}

// outWriter is the output as an io.Writer.
type outWriter struct{ o *output }

func (w outWriter) Write(p []byte) (int, error) {
	if err := w.o.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// NewWriter returns a Writer that writes an archive to w, from w's
// current offset when w is an io.WriteSeeker. Unlike the 7z writer's,
// it returns no error, as archive/zip's does, so code ports unchanged:
// an invalid option is returned by the first Create, CreateHeader,
// CreateRaw, AddFS or Close.
func NewWriter(w io.Writer, opts ...WriterOption) *Writer {
	zw := &Writer{cfg: defaultConfig()}
	if err := optfn.Apply(&zw.cfg, opts); err != nil {
		zw.life.Err = err
		return zw
	}
	if zw.cfg.Random == nil {
		zw.cfg.Random = rand.Reader
	}
	if zw.cfg.threads == 0 {
		zw.cfg.threads = defaultThreads()
	}
	zw.st = getState()
	st := zw.st
	if st.bw == nil {
		st.bw = bufio.NewWriterSize(w, 64<<10)
	} else {
		st.bw.Reset(w)
	}
	zw.out.bw = st.bw
	if ws, ok := w.(io.WriteSeeker); ok {
		if pos, err := ws.Seek(0, io.SeekCurrent); err == nil {
			zw.out.seeker, zw.out.base = ws, pos
		}
	}
	return zw
}

var (
	errWriterClosed = errors.New("zip writer: closed")
	errStaleEntry   = errors.New("zip writer: write to an entry after the next one was created")
	errNoData       = errors.New("zip writer: directory, pipe, socket and device entries take no data")
	errRawSize      = errors.New("zip writer: raw entry: bytes written differ from CompressedSize64")
)

// Create adds a regular file named name (slash-separated; a trailing
// slash makes a directory) with the Writer's method and returns the
// io.Writer for its content.
func (w *Writer) Create(name string) (io.Writer, error) {
	return w.CreateHeader(&FileHeader{Name: name, Method: w.cfg.method})
}

// CreateHeader adds an entry described by h and returns the io.Writer
// for its content (directories take none; a symlink's content is its
// target, as Info-ZIP stores it). The Writer computes the CRC-32 and
// sizes; h is not changed.
func (w *Writer) CreateHeader(h *FileHeader) (io.Writer, error) {
	return w.create(h, false, 0)
}

// CreateRaw adds an entry whose data the caller has compressed already
// with h.Method: the bytes written to the returned io.Writer go to the
// archive as they are (enciphered with WithPassword), and must be
// h.CompressedSize64 bytes; h.CRC32 and h.UncompressedSize64 describe
// the content.
func (w *Writer) CreateRaw(h *FileHeader) (io.Writer, error) {
	return w.create(h, true, flagLZMAEOS)
}

// Copy copies entry i of a (an Archive of this package) into the
// archive without decompressing it, as archive/zip's Copy copies a
// File: its compressed bytes, method, CRC-32, sizes, name, comment,
// time and mode. An encrypted entry cannot be copied (ErrUnsupported);
// with WithPassword, the copy is enciphered.
func (w *Writer) Copy(a *Archive, i int) error {
	if i < 0 || i >= len(a.files) {
		return fmt.Errorf("zip writer: entry index %d out of range", i)
	}
	f := &a.files[i]
	if f.Encrypted {
		return errs.Unsupported("copying an encrypted entry")
	}
	var hdr [localLen]byte
	off, err := a.dataOffset(f, hdr[:])
	if err != nil {
		return err
	}
	h := &FileHeader{Name: f.Name, Comment: f.Comment, Method: f.method, Modified: f.Modified,
		CRC32: f.crc, CompressedSize64: f.csize, UncompressedSize64: f.usize}
	h.SetMode(f.Mode)
	ew, err := w.create(h, true, f.flags&flagLZMAEOS)
	if err != nil {
		return err
	}
	if f.csize == 0 {
		return nil
	}
	_, err = io.Copy(ew, io.NewSectionReader(a.ra, off, int64(f.csize)))
	return err
}

// entry is the entry being written.
type entry struct {
	active    bool
	raw       bool
	noData    bool // a directory, pipe, socket or device
	streaming bool // its header is written (past the head, or raw)
	patch     bool // the local header is patched at the end (else a descriptor follows)
	comp      compressor
	seg       bool // Deflate in segments (writer_parallel.go) past the head
	r         rec
	crc       uint32
	usize     uint64
	dataOff   int64 // where its data starts
	crypt     int
}

// entryWriter is the io.Writer of one entry: a small handle, so a
// stale one (kept past the next Create) is refused, not mixed in.
type entryWriter struct {
	w   *Writer
	gen int
}

// create adds the entry h describes; for a raw entry, eos says whether
// an LZMA stream ends with an end marker (flag bit 1).
func (w *Writer) create(h *FileHeader, raw bool, eos uint16) (io.Writer, error) {
	if err := w.endEntry(); err != nil {
		return nil, err
	}
	name, isDir, err := w.entryName(h.Name)
	if err != nil {
		return nil, err
	}
	if len(h.Comment) > 0xffff {
		return nil, invalid("entry comment of %d bytes", len(h.Comment))
	}
	mode := h.Mode()
	extAttr := h.ExternalAttrs
	if extAttr>>16 != 0 {
		switch {
		case mode.IsDir():
			isDir = true
		case isDir:
			// The name's trailing slash wins over the mode's type.
			mode = fs.ModeDir | mode.Perm()
			extAttr = archwrite.UnixMode(mode)<<16 | extAttr&0xffff
		}
	}
	if isDir {
		name += "/"
	}
	if len(name) > 0xffff {
		return nil, archwrite.InvalidName("zip writer", h.Name, "longer than 65535 bytes")
	}
	method := h.Method
	if !raw && !writable(method) {
		return nil, errs.Unsupported("writing ZIP method %d", method)
	}
	isLink := extAttr>>16 != 0 && mode&fs.ModeSymlink != 0
	noData := isDir || (extAttr>>16 != 0 && mode&archwrite.SpecialTypes != 0)
	if noData || w.cfg.Level == 0 && !raw {
		method = Store
	}
	e := &w.cur
	*e = entry{active: true, raw: raw, noData: noData}
	r := &e.r
	r.name, r.comment, r.mtime = name, h.Comment, h.Modified
	r.real = method
	r.dosDate, r.dosTime = dosDateTime(h.Modified)
	r.extAttr = extAttr
	if isDir {
		r.extAttr |= dosDir
	}
	r.madeBy = verMadeBy
	if extAttr>>16 != 0 {
		r.madeBy |= hostUnix << 8
	}
	if needsUTF8(name) || needsUTF8(h.Comment) {
		r.flags |= flagUTF8
	}
	// Symlinks stay in clear: bsdtar cannot read an encrypted one, and
	// the target says no more than the names around it.
	if w.cfg.Password != "" && !isDir && !isLink {
		e.crypt = cryptAES
		if w.cfg.zipCrypto {
			e.crypt = cryptZip
		}
	}
	r.localZ64 = h.UncompressedSize64 > zip64Max || raw && h.CompressedSize64 > zip64Max
	w.st.names[name] = struct{}{}
	w.gen++
	if raw {
		if err := w.drain(); err != nil {
			return nil, w.fail(err)
		}
		r.crc, r.usize, r.csize = h.CRC32, h.UncompressedSize64, h.CompressedSize64
		setEntryMethod(e, method)
		r.flags = r.flags&^flagLZMAEOS | r.flags&eos
		r.csize += cryptOverheadW(e.crypt)
		if err := w.writeLocal(e, true); err != nil {
			return nil, err
		}
		e.streaming = true
	}
	return &entryWriter{w: w, gen: w.gen}, nil
}

// entryName returns the name an entry named raw is stored under (no
// trailing slash), or an error matching ErrInvalidName.
func (w *Writer) entryName(raw string) (name string, dir bool, err error) {
	name, dir = archwrite.SplitName(raw)
	if w.cfg.CleanNames {
		name = archwrite.CleanName(name)
	}
	if why := archwrite.CheckName(name); why != "" {
		return "", false, archwrite.InvalidName("zip writer", raw, why)
	}
	_, dupFile := w.st.names[name]
	_, dupDir := w.st.names[name+"/"]
	if dupFile || dupDir {
		return "", false, archwrite.InvalidName("zip writer", raw, "already in the archive")
	}
	return name, dir, nil
}

func (h *entryWriter) Write(p []byte) (int, error) {
	w := h.w
	e := &w.cur
	switch {
	case w.life.Done:
		return 0, errWriterClosed
	case !e.active || h.gen != w.gen:
		return 0, errStaleEntry
	case w.life.Err != nil:
		return 0, w.life.Err
	case len(p) == 0:
		return 0, nil
	case e.noData:
		return 0, errNoData
	}
	if e.raw {
		if err := w.writeData(p); err != nil {
			return 0, w.fail(err)
		}
		return len(p), nil
	}
	e.crc = crc32.Update(e.crc, crc32.IEEETable, p)
	e.usize += uint64(len(p))
	total := len(p)
	if !e.streaming {
		st := w.st
		c := min(len(p), headSize-len(st.head))
		if len(st.head)+c > cap(st.head) {
			// Full size at once: head buffers travel with jobs, and a
			// small one grown step by step would allocate per archive.
			st.head = append(make([]byte, 0, headSize), st.head...)
		}
		st.head = append(st.head, p[:c]...)
		p = p[c:]
		if len(p) == 0 {
			return total, nil
		}
		if err := w.startStream(); err != nil {
			return 0, w.fail(err)
		}
	}
	var err error
	switch {
	case e.seg:
		err = w.writeSegmented(p)
	case e.comp != nil:
		_, err = e.comp.Write(p)
	default:
		err = w.writeData(p)
	}
	if err != nil {
		return 0, w.fail(err)
	}
	return total, nil
}

// cryptOverheadW is what encryption kind adds to an entry's data.
func cryptOverheadW(kind int) uint64 {
	switch kind {
	case cryptAES:
		return aesOverhead
	case cryptZip:
		return zipcrypto.HeaderLen
	}
	return 0
}

// fail makes err the Writer's sticky error.
func (w *Writer) fail(err error) error { return w.life.Fail(err) }

// writeData writes bytes of the entry's data the caller owns: enciphered
// when the entry is.
func (w *Writer) writeData(p []byte) error {
	if w.cur.crypt != 0 {
		_, err := w.st.crypt.Write(p)
		return err
	}
	return w.out.write(p)
}

// dataWriter is where the entry's compressed data goes.
func (w *Writer) dataWriter() io.Writer {
	if w.cur.crypt != 0 {
		return &w.st.crypt
	}
	return outWriter{&w.out}
}

// setEntryMethod fills in e's header method and version for compression
// method m.
func setEntryMethod(e *entry, m uint16) {
	r := &e.r
	r.real, r.method = m, m
	r.version = methodVersion(m)
	if m == LZMA {
		r.flags |= flagLZMAEOS
	}
	switch e.crypt {
	case cryptAES:
		r.aes, r.method = true, methodAES
		r.version = max(r.version, verAES)
		r.flags |= flagEncrypted
	case cryptZip:
		r.flags |= flagEncrypted
	}
	if r.localZ64 {
		r.version = max(r.version, verZip64)
	}
}

// writeLocal writes e's local header, here, and starts its encryption.
// known says the CRC and sizes in e.r are final.
func (w *Writer) writeLocal(e *entry, known bool) error {
	r := &e.r
	r.offset = uint64(w.out.off)
	if !known {
		e.patch = w.out.seeker != nil && e.crypt != cryptZip
		if !e.patch {
			r.flags |= flagDescriptor
		}
		r.crc, r.csize, r.usize = 0, 0, 0
	}
	if e.crypt == cryptAES {
		r.crc = 0 // AE-2: the authentication code checks the data
	}
	w.st.hdr = appendLocal(w.st.hdr[:0], r)
	if err := w.out.write(w.st.hdr); err != nil {
		return err
	}
	e.dataOff = w.out.off
	if e.crypt == 0 {
		return nil
	}
	// ZipCrypto's check byte: the CRC's high byte, or the time's with a
	// data descriptor (Info-ZIP's rule, which readers follow).
	check := byte(r.crc >> 24)
	if r.flags&flagDescriptor != 0 {
		check = byte(r.dosTime >> 8)
	}
	return w.st.crypt.start(e.crypt, &w.out, w.cfg.Password, w.cfg.Random, check)
}

// startStream writes an entry that outgrew the head: it judges the
// method by the head, writes the local header and passes the head on.
func (w *Writer) startStream() error {
	if err := w.drain(); err != nil {
		return err
	}
	e := &w.cur
	st := w.st
	e.streaming = true
	m := e.r.real
	if m != Store {
		st.cbuf = st.cbuf[:0]
		st.sw = switchWriter{buf: &st.cbuf}
		c, err := st.enc.get(m, w.cfg.Level, &st.sw, false)
		if err != nil {
			return err
		}
		e.comp = c
		if _, err := c.Write(st.head); err != nil {
			return err
		}
		if m != LZMA {
			if err := c.Flush(); err != nil {
				return err
			}
			if len(st.cbuf) >= len(st.head) {
				c.Close()
				st.enc.done()
				e.comp, m = nil, Store
			}
		}
	}
	setEntryMethod(e, m)
	if err := w.writeLocal(e, false); err != nil {
		return err
	}
	if e.comp == nil {
		return w.writeData(st.head)
	}
	st.sw.w = w.dataWriter()
	if _, err := st.sw.w.Write(st.cbuf); err != nil {
		return err
	}
	if m == Deflate {
		// The rest goes in segments compressed apart, the head's
		// compressor left as it is (its stream ends byte-aligned).
		st.enc.done()
		st.sw = switchWriter{}
		e.comp, e.seg = nil, true
		copy(st.tail[:], st.head[len(st.head)-segDict:])
		st.head = st.head[:0]
	}
	return nil
}

// job is an entry that ended within the head: compressed whole (by
// compress, on a worker with WithThreads), then written in archive
// order (by writeJob).
type job struct {
	e    entry
	head []byte // the entry's bytes
	cbuf []byte // compressed
	sw   switchWriter
	m    uint16 // the method after compress
	data []byte // what writeJob writes: head or cbuf
	err  error
	done chan struct{} // compress finished (parallel jobs)

	// A segment of a long Deflate entry: compressed with the previous
	// segment's last bytes as dictionary, ended by a sync flush, or by
	// the final block when final.
	seg, final bool
	dict       [segDict]byte
}

// compress compresses j.head with enc, or stores it when that is not
// smaller.
func (j *job) compress(enc *encoders, level int) {
	if j.seg {
		j.compressSegment(enc, level)
		return
	}
	j.data, j.m, j.err = j.head, j.e.r.real, nil
	if len(j.head) == 0 || j.e.noData {
		j.m = Store
	}
	if j.m == Store {
		return
	}
	if cap(j.cbuf) < len(j.head)+len(j.head)/8+64 {
		j.cbuf = make([]byte, 0, headSize+headSize/8+64)
	}
	j.cbuf = j.cbuf[:0]
	j.sw = switchWriter{buf: &j.cbuf}
	c, err := enc.get(j.m, level, &j.sw, true)
	if err != nil {
		j.err = err
		return
	}
	_, err = c.Write(j.head)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	enc.done()
	j.sw = switchWriter{}
	switch {
	case err != nil:
		j.err = err
	case len(j.cbuf) < len(j.head):
		j.data = j.cbuf
	default:
		j.m = Store
	}
}

// writeJob writes j's entry: local header with its sizes, then the data.
func (w *Writer) writeJob(j *job) error {
	if j.err != nil {
		return j.err
	}
	e := &j.e
	setEntryMethod(e, j.m)
	r := &e.r
	if !e.noData {
		r.crc, r.usize, r.csize = e.crc, e.usize, uint64(len(j.data))+cryptOverheadW(e.crypt)
	}
	if err := w.writeLocal(e, true); err != nil {
		return err
	}
	w.st.recs = append(w.st.recs, *r)
	switch {
	case e.noData:
		return nil
	case e.crypt == 0:
		return w.out.write(j.data)
	}
	if err := w.st.crypt.writeOwned(j.data); err != nil {
		return err
	}
	return w.st.crypt.finish()
}

// finishSmall hands the entry that ended within the head (or has no
// data) to a job: compressed here, or queued for the workers.
func (w *Writer) finishSmall() error {
	st := w.st
	if w.cfg.threads > 1 {
		return w.queue()
	}
	j := &st.job
	j.e = w.cur
	j.head, st.head = st.head, j.head[:0]
	j.compress(&st.enc, w.cfg.Level)
	return w.writeJob(j)
}

// endEntry completes the current entry.
func (w *Writer) endEntry() error {
	if err := w.life.Check(errWriterClosed); err != nil || !w.cur.active {
		return err
	}
	e := &w.cur
	e.active = false
	if !e.streaming {
		if err := w.finishSmall(); err != nil {
			return w.fail(err)
		}
		return nil
	}
	if e.seg {
		if err := w.segment(true); err != nil {
			return w.fail(err)
		}
		if err := w.drain(); err != nil {
			return w.fail(err)
		}
	}
	if err := w.finishEntry(); err != nil {
		return w.fail(err)
	}
	w.st.head = w.st.head[:0]
	w.st.recs = append(w.st.recs, e.r)
	return nil
}

func (w *Writer) finishEntry() error {
	e := &w.cur
	r := &e.r
	if e.comp != nil {
		err := e.comp.Close()
		w.st.enc.done()
		e.comp = nil
		if err != nil {
			return err
		}
	}
	if e.crypt != 0 {
		if err := w.st.crypt.finish(); err != nil {
			return err
		}
	}
	csize := uint64(w.out.off - e.dataOff)
	if e.raw {
		if csize != r.csize {
			return errRawSize
		}
		return nil
	}
	r.csize, r.usize, r.crc = csize, e.usize, e.crc
	if e.crypt == cryptAES {
		r.crc = 0
	}
	if e.patch && (r.localZ64 || r.csize <= zip64Max && r.usize <= zip64Max) {
		var b [24]byte
		le.PutUint32(b[:], r.crc)
		if r.localZ64 {
			if err := w.out.patch(int64(r.offset)+14, b[:4]); err != nil {
				return err
			}
			le.PutUint64(b[:], r.usize)
			le.PutUint64(b[8:], r.csize)
			return w.out.patch(int64(r.offset)+localLen+int64(len(r.name))+4, b[:16])
		}
		le.PutUint32(b[4:], uint32(r.csize))
		le.PutUint32(b[8:], uint32(r.usize))
		return w.out.patch(int64(r.offset)+14, b[:12])
	}
	if e.patch {
		// Larger than the local header can say: it gets a descriptor.
		r.flags |= flagDescriptor
		var b [2]byte
		le.PutUint16(b[:], r.flags)
		if err := w.out.patch(int64(r.offset)+6, b[:]); err != nil {
			return err
		}
	}
	return w.writeDescriptor()
}

// writeDescriptor writes the data descriptor (APPNOTE 4.3.9), with
// 8-byte sizes when the entry is Zip64.
func (w *Writer) writeDescriptor() error {
	r := &w.cur.r
	b := w.st.hdr[:0]
	b = le.AppendUint32(b, sigDescriptor)
	b = le.AppendUint32(b, r.crc)
	if r.localZ64 || r.csize > zip64Max || r.usize > zip64Max {
		b = le.AppendUint64(b, r.csize)
		b = le.AppendUint64(b, r.usize)
	} else {
		b = le.AppendUint32(b, uint32(r.csize))
		b = le.AppendUint32(b, uint32(r.usize))
	}
	w.st.hdr = b
	return w.out.write(b)
}

// SetComment sets the archive comment (at most 65535 bytes), written
// by Close.
func (w *Writer) SetComment(comment string) error {
	if len(comment) > 0xffff {
		return invalid("archive comment of %d bytes", len(comment))
	}
	w.comment = comment
	return nil
}

// Flush passes what the Writer has buffered to the underlying writer,
// the entries the workers compress included. The entry being written
// keeps its held-back head (see Writer).
func (w *Writer) Flush() error {
	if w.life.Done {
		return errWriterClosed
	}
	if w.life.Err != nil {
		return w.life.Err
	}
	if err := w.drain(); err != nil {
		return w.fail(err)
	}
	if err := w.out.bw.Flush(); err != nil {
		return w.fail(err)
	}
	return nil
}

// Close finishes the last entry and writes the central directory and
// the end records. It does not close the underlying writer. The pooled
// coders and buffers go back on every return, error or not.
func (w *Writer) Close() error {
	return w.life.Close(errWriterClosed, w.finish, func(bool) { w.release() })
}

// finish writes what Close adds.
func (w *Writer) finish() error {
	if err := w.endEntry(); err != nil {
		return err
	}
	if err := w.drain(); err != nil {
		return err
	}
	if err := w.writeDirectory(); err != nil {
		return err
	}
	return w.out.bw.Flush()
}

// writeDirectory writes the central directory and the end records.
func (w *Writer) writeDirectory() error {
	st := w.st
	start := w.out.off
	for i := range st.recs {
		st.hdr = appendCentral(st.hdr[:0], &st.recs[i])
		if err := w.out.write(st.hdr); err != nil {
			return err
		}
	}
	size := uint64(w.out.off - start)
	st.hdr = appendEnd(st.hdr[:0], uint64(len(st.recs)), size, uint64(start), w.comment)
	return w.out.write(st.hdr)
}

// release returns the pooled state (also after errors).
func (w *Writer) release() {
	st := w.st
	if st == nil {
		return
	}
	w.st = nil
	w.cur = entry{}
	st.par.abandon()
	st.enc.release()
	st.crypt.forget()
	st.crypt.out = nil
	st.bw.Reset(nil)
	st.sw = switchWriter{}
	clear(st.recs)
	st.recs = st.recs[:0]
	if len(st.names) > 1<<12 {
		st.names = make(map[string]struct{})
	} else {
		clear(st.names)
	}
	st.head = st.head[:0]
	if cap(st.cbuf) > 2*headSize {
		st.cbuf = nil
	}
	if cap(st.hdr) > 1<<20 {
		st.hdr = nil
	}
	putState(st)
}

// Abort gives up the archive: nothing more is written, and the pooled
// coders and buffers go back, as after Close. Abort after Close does
// nothing.
func (w *Writer) Abort() { w.life.Abort(errAborted, func(bool) { w.release() }) }

var errAborted = errors.New("zip writer: aborted")
