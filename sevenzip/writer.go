package sevenzip

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"time"

	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/optfn"
)

// FileHeader describes an entry for Writer.CreateHeader.
type FileHeader struct {
	// Name is the slash-separated path inside the archive. A trailing
	// slash makes a directory, as does fs.ModeDir in Mode; a leading
	// "./" is dropped. Bytes that are not UTF-8 are stored as 7-Zip on
	// Unix stores them (byte b as U+EF00+b; 7-Zip extracts the byte).
	// A name that is absolute, has a drive letter ("C:"), an empty, "."
	// or ".." element or a NUL, or that an earlier entry has, is refused
	// with an error matching ErrInvalidName (WithCleanNames cleans it).
	Name string

	// Modified, Created and Accessed are stored at 100 ns; a zero time
	// is not stored.
	Modified, Created, Accessed time.Time

	// Mode holds the permission bits and the type (fs.ModeDir,
	// fs.ModeSymlink; fs.ModeNamedPipe, fs.ModeSocket and fs.ModeDevice
	// make an entry without data that keeps its type, as 7-Zip stores
	// them, without device numbers, and readers extract as empty files;
	// other types are stored as regular files). It is stored as 7-Zip on
	// Unix stores it: st_mode in the high 16 bits of the attributes,
	// flagged by 0x8000. A Mode of 0 stores no Unix mode (a file reads
	// back as 0644, a directory as 0755).
	Mode fs.FileMode

	// Attributes are Windows attribute bits (read-only 0x1, hidden 0x2,
	// system 0x4, …) ORed into what Mode gives; the directory (0x10) and
	// archive (0x20) bits are set from the type.
	Attributes uint32
}

// A symlink (Mode has fs.ModeSymlink) is stored as 7-Zip -snl stores it:
// a file whose content is the link target, written through the
// io.Writer CreateHeader returns, with S_IFLNK in its Unix mode.

// Writer writes a 7z archive. Entries are added in order with Create,
// CreateHeader or AddFS; the io.Writer returned for one entry is valid
// until the next call of these or Close. Sizes need not be known in
// advance. Close writes the header and the start header; it must be
// called, and the archive is complete only when it returns nil.
//
// Data flows through a per-folder chain: the entry's CRC32, the filter
// (BCJ, ARM64, Delta …), the compressor (LZMA2, LZMA, Copy), 7zAES
// when a password is set, then the output. Files go into one solid
// folder, split by WithSolid and wherever the filter changes (files
// with the same filter share a folder). A Writer is not safe for
// concurrent use.
type Writer struct {
	cfg  writerConfig
	out  *sink
	st   *wstate
	life archwrite.Lifecycle
	rand io.Reader

	cur    entryState // the entry being written, when cur.active
	curIdx int
	salt   [16]byte
	hasKey bool

	fo folderState
}

// folderState is the folder being written.
type folderState struct {
	folderChain
	filter Filter
	files  int
	unpack int64
}

// counter counts the bytes passed on to w.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// fileRec is one entry's header data.
type fileRec struct {
	name         string
	ctime, atime uint64
	mtime        uint64
	hasTime      uint8 // bit 0 ctime, 1 atime, 2 mtime
	hasAttrib    bool
	isDir        bool
	hasStream    bool
	attrib       uint32
	size         int64
	crc          uint32
}

// wstate is a Writer's reusable bookkeeping and coders, pooled across
// archives so a warm writer allocates little.
type wstate struct {
	files   []fileRec
	folders []folderRec
	names   map[string]struct{} // the names in files, to refuse duplicates
	hdr     []byte
	enc     []byte
	sniff   [sniffSize]byte
	bw      bcj.Writer
	aes     *aes7z.Writer
	coders  coderCache
}

// freeStates keeps the states of closed writers; their encoders hold no
// windows once closed: those went back to internal/pool.
var freeStates = archwrite.FreeList[wstate]{Max: 4}

func getState() *wstate {
	if st := freeStates.Get(); st != nil {
		return st
	}
	return new(wstate)
}

func putState(st *wstate) { freeStates.Put(st) }

// NewWriter returns a Writer that writes an archive to w. The 32-byte
// start header at the archive's first byte is written last, so an
// io.WriteSeeker or io.WriterAt (an *os.File) is written in place: an
// io.WriteSeeker's archive starts at its current offset, an
// io.WriterAt's at offset 0. Any other io.Writer (a bytes.Buffer, a
// network stream) receives the whole archive at Close, spooled until
// then to a temporary file in os.TempDir that Close or Abort removes;
// WithSpool names another spool, WithDeferredStartHeader writes in
// order without one, and WithVolumes sends the archive to volumes.
// With a password, the key is derived here, once.
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	c := defaultConfig()
	if err := optfn.Apply(&c, opts); err != nil {
		return nil, err
	}
	if c.encHeaders && c.Password == "" {
		return nil, invalid("encrypted headers need a password")
	}
	if c.lcSet && c.method == LZMA2 && c.lc+c.lp > 4 {
		return nil, invalid("LZMA2 with lc+lp = %d > 4", c.lc+c.lp)
	}
	if c.Level == 0 {
		c.method = Copy
	}
	if c.Random == nil {
		c.Random = rand.Reader
	}
	out, err := newSink(w, &c)
	if err != nil {
		return nil, err
	}
	zw := &Writer{cfg: c, out: out, rand: c.Random, curIdx: -1}
	zw.st = getState()
	zw.st.files = zw.st.files[:0]
	zw.st.folders = zw.st.folders[:0]
	if c.Password != "" {
		if err := zw.deriveKey(); err != nil {
			zw.release()
			out.abort()
			return nil, err
		}
	}
	return zw, nil
}

// deriveKey derives the writer's one key and readies the encryptor.
func (w *Writer) deriveKey() error {
	p := aes7z.Props{Cycles: uint8(w.cfg.cycles)}
	if n := w.cfg.saltLen; n > 0 {
		if _, err := io.ReadFull(w.rand, w.salt[:n]); err != nil {
			return fmt.Errorf("7z writer: random source: %w", err)
		}
		p.Salt = w.salt[:n]
	}
	key, err := aes7z.Key(w.cfg.Password, &p)
	if err != nil {
		return err
	}
	if w.st.aes == nil {
		w.st.aes = new(aes7z.Writer)
	}
	err = w.st.aes.SetKey(key)
	clear(key[:])
	if err != nil {
		return err
	}
	w.hasKey = true
	return nil
}

// release returns the pooled state (also after errors).
func (w *Writer) release() {
	st := w.st
	if st == nil {
		return
	}
	w.st = nil
	// After an error nothing more reaches the output: encoders closed
	// here only give their memory back.
	w.out.failed = true
	if w.fo.comp != nil {
		w.fo.comp.Close()
		w.fo.comp = nil
	}
	st.bw.Close()
	if st.aes != nil {
		st.aes.Forget() // the key stays with this writer
	}
	st.coders.release()
	clear(st.files)
	st.files = st.files[:0]
	if len(st.names) > 1<<12 {
		st.names = nil // a big archive's table is not kept for the next
	} else {
		clear(st.names)
	}
	st.folders = st.folders[:0]
	clear(st.sniff[:])
	if cap(st.hdr) > 1<<20 {
		st.hdr = nil
	}
	if cap(st.enc) > 1<<20 {
		st.enc = nil
	}
	putState(st)
}

var (
	errWriterClosed = errors.New("7z writer: closed")
	errStaleEntry   = errors.New("7z writer: write to an entry after the next one was created")
	errNoData       = errors.New("7z writer: directory, pipe, socket and device entries take no data")
)

// Create adds a regular file named name (slash-separated) and returns
// the io.Writer for its content.
func (w *Writer) Create(name string) (io.Writer, error) {
	return w.CreateHeader(&FileHeader{Name: name})
}

// CreateHeader adds an entry described by h and returns the io.Writer
// for its content (directories take none; a symlink's content is its
// target).
func (w *Writer) CreateHeader(h *FileHeader) (io.Writer, error) {
	if err := w.endEntry(); err != nil {
		return nil, err
	}
	name, isDir, err := w.entryName(h.Name)
	if err != nil {
		return nil, err
	}
	isDir = isDir || h.Mode.IsDir()
	r := fileRec{name: name, isDir: isDir}
	for i, t := range [3]time.Time{h.Created, h.Accessed, h.Modified} {
		if t.IsZero() {
			continue
		}
		if t.Year() < 1601 || t.Year() > 30000 {
			return nil, invalid("time %v outside 1601..30000", t)
		}
		r.hasTime |= 1 << i
		switch i {
		case 0:
			r.ctime = archwrite.Filetime(t)
		case 1:
			r.atime = archwrite.Filetime(t)
		case 2:
			r.mtime = archwrite.Filetime(t)
		}
	}
	attr := h.Attributes &^ (0x10 | 0x20 | attrUnixExt | 0xFFFF0000)
	if isDir {
		attr |= 0x10
	} else {
		attr |= 0x20
	}
	mode := h.Mode
	if isDir {
		mode |= fs.ModeDir
	}
	if h.Mode&^fs.ModeDir != 0 || h.Mode&fs.ModeSymlink != 0 {
		attr |= attrUnixExt | archwrite.UnixMode(mode)<<16
		if mode&0o200 == 0 {
			attr |= 0x01
		}
	}
	r.attrib, r.hasAttrib = attr, true
	w.st.names[name] = struct{}{}
	w.st.files = append(w.st.files, r)
	w.curIdx = len(w.st.files) - 1
	w.cur = entryState{active: true, noData: isDir || mode&archwrite.SpecialTypes != 0, link: mode&fs.ModeSymlink != 0}
	return &entryWriter{w: w, idx: w.curIdx}, nil
}

// entryWriter is the io.Writer of one entry: a small handle, so a
// stale one (kept past the next Create) is refused, not mixed in.
type entryWriter struct {
	w   *Writer
	idx int
}

// entryState is the state of the entry being written.
type entryState struct {
	active  bool
	noData  bool // a directory, pipe, socket or device
	link    bool
	started bool // the stream is open in a folder
	n       int  // sniff bytes buffered (before started)
	size    int64
	crc     uint32
}

func (h *entryWriter) Write(p []byte) (int, error) {
	w := h.w
	e := &w.cur
	if !e.active || h.idx != w.curIdx || w.life.Done {
		if w.life.Done {
			return 0, errWriterClosed
		}
		return 0, errStaleEntry
	}
	if w.life.Err != nil {
		return 0, w.life.Err
	}
	if e.noData {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, errNoData
	}
	if len(p) == 0 {
		return 0, nil
	}
	total := len(p)
	e.crc = crc32.Update(e.crc, crc32.IEEETable, p)
	e.size += int64(len(p))
	if !e.started {
		if w.cfg.filter == FilterAuto && !e.link {
			c := copy(w.st.sniff[e.n:], p)
			e.n += c
			p = p[c:]
			if e.n < sniffSize {
				return total, nil
			}
		}
		if err := w.startEntry(); err != nil {
			return 0, err
		}
	}
	if len(p) > 0 {
		if _, err := w.fo.head.Write(p); err != nil {
			w.life.Fail(err)
			return 0, err
		}
	}
	return total, nil
}

// start opens the entry's stream: chooses the filter from the buffered
// first bytes, switches folders as needed, and passes those bytes on.
func (w *Writer) startEntry() error {
	e := &w.cur
	f := w.cfg.filter
	if f == FilterAuto {
		f = FilterNone
		if !e.link {
			f = sniffFilter(w.st.sniff[:e.n])
		}
	}
	fo := &w.fo
	if fo.open && (fo.filter != f ||
		(w.cfg.solidFiles > 0 && fo.files >= w.cfg.solidFiles) ||
		(w.cfg.solidBytes > 0 && fo.unpack >= w.cfg.solidBytes)) {
		if err := w.closeFolder(); err != nil {
			return err
		}
	}
	if !fo.open {
		if err := w.openFolder(f); err != nil {
			return err
		}
	}
	e.started = true
	if e.n > 0 {
		if _, err := fo.head.Write(w.st.sniff[:e.n]); err != nil {
			w.life.Fail(err)
			return err
		}
		e.n = 0
	}
	return nil
}

// endEntry completes the current entry.
func (w *Writer) endEntry() error {
	if err := w.life.Check(errWriterClosed); err != nil || !w.cur.active {
		return err
	}
	e := &w.cur
	e.active = false
	if e.size == 0 {
		return nil // an empty file or a directory: no stream
	}
	if !e.started {
		if err := w.startEntry(); err != nil {
			return err
		}
	}
	r := &w.st.files[w.curIdx]
	r.hasStream, r.size, r.crc = true, e.size, e.crc
	w.fo.files++
	w.fo.unpack += e.size
	return nil
}

// openFolder starts a folder with filter f.
func (w *Writer) openFolder(f Filter) error {
	fo := &w.fo
	*fo = folderState{filter: f}
	if err := w.openChain(&fo.folderChain, f, w.hasKey, false, 0); err != nil {
		w.life.Fail(err)
		return err
	}
	return nil
}

// closeFolder flushes the chain and records the folder.
func (w *Writer) closeFolder() error {
	fo := &w.fo
	if !fo.open {
		return nil
	}
	r, err := w.closeChain(&fo.folderChain, fo.unpack, fo.files)
	if err != nil {
		w.life.Fail(err)
		return err
	}
	w.st.folders = append(w.st.folders, r)
	return nil
}

// Close finishes the last entry and folder, writes the header and puts
// the start header in place. It does not close the underlying writer.
// The pooled coders and buffers go back on every return, error or not.
func (w *Writer) Close() error {
	return w.life.Close(errWriterClosed, w.finish, w.end)
}

// finish writes what Close adds.
func (w *Writer) finish() error {
	if err := w.endEntry(); err != nil {
		return err
	}
	if err := w.closeFolder(); err != nil {
		return err
	}
	return w.writeHeader()
}

// end gives the pooled state back; after a failure the output is
// abandoned.
func (w *Writer) end(failed bool) {
	w.release()
	if failed {
		w.out.abort()
	}
}

// Abort gives up the archive: nothing more is written (the start header
// stays zero, so readers see an unfinished archive) and the pooled
// coders and buffers go back, as after Close. Volumes the writer created
// are closed. Abort after Close does nothing.
func (w *Writer) Abort() { w.life.Abort(errAborted, w.end) }

var errAborted = errors.New("7z writer: aborted")

// StartHeader returns the archive's 32-byte start header after a
// successful Close; with WithDeferredStartHeader the caller writes it as
// the archive's first bytes.
func (w *Writer) StartHeader() ([sigHeaderSize]byte, error) {
	if !w.life.Done || w.life.Err != nil {
		return [sigHeaderSize]byte{}, errors.New("7z writer: no start header: Close has not succeeded")
	}
	return w.out.start, nil
}

// makeStart builds the start header for the next header at off (archive
// offset) of size n with CRC c.
func makeStart(off, n int64, c uint32) [sigHeaderSize]byte {
	var b [sigHeaderSize]byte
	copy(b[:], signature[:])
	b[6], b[7] = 0, 4
	binary.LittleEndian.PutUint64(b[12:], uint64(off-sigHeaderSize))
	binary.LittleEndian.PutUint64(b[20:], uint64(n))
	binary.LittleEndian.PutUint32(b[28:], c)
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
	return b
}
