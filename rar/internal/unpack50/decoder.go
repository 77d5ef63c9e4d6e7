// Package unpack50 decodes RAR 5.0 and RAR 7.0 compressed data (the LZ +
// Huffman scheme unrar calls Unpack5), including its DELTA, E8, E8E9 and
// ARM filters and solid streams that carry the window, the tables and the
// repeated distances from one entry to the next.
//
// The package knows nothing about archive headers: the rar container hands
// it the packed bytes of one entry, the dictionary size and the unpacked
// size from the file header (see CompInfo for the compression-info field).
//
// # Security
//
// The window is sized by what the stream produces, not by the declared
// dictionary: it starts at min(dictionary, unpacked size, 32 MiB)
// and grows as output appears, never beyond the dictionary. Callers must
// still check the dictionary against their limits before Reset, because a
// long stream legitimately grows the window up to the dictionary.
package unpack50

import (
	"errors"
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Alphabet sizes of the RAR 5.0 code tables (unrar compress.hpp).
const (
	nc  = 306 // main: 256 literals, filter, repeat, 4 old distances, 44 length slots
	dcb = 64  // distance slots, algorithm version 0
	dcx = 80  // distance slots, algorithm version 1 (RAR 7 ExtraDist)
	ldc = 16  // low distance bits
	rc  = 44  // lengths after an old distance
	bc  = 20  // bit-length code

	maxLZMatch    = 0x1001
	maxIncLZMatch = maxLZMatch + 3 // plus the distance-based length bonus

	maxFilters    = 8192     // pending filters (unrar MAX_UNPACK_FILTERS)
	maxFilterSize = 0x400000 // unrar MAX_FILTER_BLOCK_SIZE
	minWindow     = 0x40000  // unrar never uses a smaller window
	maxDict       = 1 << 36  // 64 GiB, unrar UNPACK_MAX_DICT

	initialWindowMax = 32 << 20  // rar 7's default dictionary; beyond, windows grow as data appears
	initialUnknown   = 256 << 10 // first window when the size is unknown

	// maxOvershoot bounds the bytes a stream may produce past the entry's
	// declared size. unrar drops such bytes silently; valid archives
	// never have any, so this only limits wasted work on corrupt input.
	maxOvershoot = 4 << 20
)

// Filter types (RAR 5.0 technote, compression filters).
const (
	filterDelta = 0
	filterE8    = 1
	filterE8E9  = 2
	filterARM   = 3
)

type filter struct {
	start    int64 // stream position of the first byte
	length   int
	typ      byte
	channels int
}

type tables struct {
	bd, ld, dd, ldd, rd huffTable
	lens                [nc + dcx + ldc + rc]byte
}

var tablePool = pool.Of[tables]{New: func() *tables { return new(tables) }}

// Decoder decodes one RAR 5.0 compressed entry after another. The zero
// value is not usable; call NewDecoder, then Reset for each entry.
type Decoder struct {
	br bitReader
	t  *tables

	winp  *[]byte
	win   []byte // len(win) == wsize
	wsize int    // window modulus; equals dict once the window wraps
	dict  int64  // effective dictionary, >= minWindow
	w     int    // window index of the next byte; == total while linear
	total int64  // bytes produced since the solid stream began

	extraDist bool // algorithm version 1: 80 distance slots

	entryStart, entryEnd int64 // stream positions of this entry
	rpos                 int64 // stream position handed out (or moved into a filter)
	ridx                 int   // window index of rpos
	out                  []byte

	filters []filter // pending filters, filters[fhead:] in position order
	fhead   int
	fbufp   *[]byte // filter input being gathered
	fdstp   *[]byte // delta filter output
	fgot    int

	oldDist [4]uint64
	lastLen int

	haveTables bool
	blockEnd   int64 // bit position where the current block's data ends
	lastBlock  bool
	streamDone bool
	complete   bool // all bytes of the entry were produced from real input
	started    bool // a solid stream exists
	err        error

	cpNext int64                // entry offset of the next checkpoint call
	cpFn   func(*Decoder) int64 // OnCheckpoint's hook, or nil

	workers    int       // SetWorkers
	pl         *pipeline // pipelined decoding (pipeline.go), kept across entries
	tok        bool      // this entry is applying the pipeline's tokens
	tokPending bool      // the entry may start pipelined at its first decode

	filtersRun [4]int // filters applied per type, for tests
	naive      bool   // tests: copy every match byte by byte (the reference)
}

// NewDecoder returns a decoder ready for Reset.
func NewDecoder() *Decoder { return &Decoder{} }

// Reset prepares d to decode one entry compressed with algorithm version 0
// (RAR 5.0). See ResetVersion.
func (d *Decoder) Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error {
	return d.ResetVersion(src, 0, dictSize, unpackedSize, solid)
}

// ResetVersion prepares d to decode one entry: src holds its packed data
// (decrypted, volumes joined), version is the algorithm version from the
// file header's compression information (0 = RAR 5.0, 1 = RAR 7.0 with
// 80 distance slots), dictSize the dictionary size from the same field,
// unpackedSize the entry's size or -1 when unknown (then the stream's last
// block ends it). solid continues the previous entry's window, tables and
// repeated distances; an unfinished previous entry is decoded to its end
// first. The dictionary of a solid stream is the one of its first entry.
func (d *Decoder) ResetVersion(src io.Reader, version int, dictSize, unpackedSize int64, solid bool) error {
	if version != 0 && version != 1 {
		return errs.Unsupported("rar5 compression algorithm version %d", version)
	}
	if dictSize <= 0 || dictSize > maxDict || dictSize-1 > math.MaxInt/2 {
		// The last bound matters on 32-bit platforms only: window
		// indexes are ints.
		return errs.Unsupported("rar5 dictionary size %d", dictSize)
	}
	if solid && d.started && d.err == nil {
		// Finish the previous entry so the window and tables are where
		// the next entry's data expects them.
		d.WriteTo(io.Discard)
	}
	if d.pl != nil {
		d.pl.drain()
	}
	d.tok, d.tokPending = false, d.workers > 1
	if solid && d.started && d.err != io.EOF {
		err := d.err
		if err == nil {
			err = errs.Corrupt("rar5: solid entry follows an unfinished one")
		}
		return err
	}
	if d.t == nil {
		d.t = tablePool.Get()
	}
	if !solid || !d.started {
		dict := dictSize
		if dict < minWindow {
			dict = minWindow
		}
		want := int64(initialUnknown)
		if unpackedSize >= 0 {
			want = unpackedSize + 1
		}
		if want > initialWindowMax {
			want = initialWindowMax
		}
		if want > dict {
			want = dict
		}
		d.dict = dict
		d.setWindow(int(want))
		d.w, d.total = 0, 0
		d.oldDist = [4]uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64}
		d.lastLen = 0
		d.haveTables = false
		d.started = true
	}
	d.br.reset(src)
	d.extraDist = version == 1
	d.entryStart = d.total
	d.entryEnd = math.MaxInt64
	if unpackedSize >= 0 {
		d.entryEnd = d.total + unpackedSize
	}
	d.rpos, d.ridx = d.total, d.w
	d.out = nil
	d.filters = d.filters[:0]
	d.fhead, d.fgot = 0, 0
	d.blockEnd, d.lastBlock = -1, false
	d.streamDone, d.complete = false, false
	d.err = nil
	d.cpFn = nil
	return nil
}

// setWindow makes the window hold at least want bytes (fresh contents).
func (d *Decoder) setWindow(want int) {
	if d.winp == nil || cap(*d.winp) < want {
		pool.Put(d.winp)
		d.winp = pool.Get(want)
	}
	d.useWindow()
}

// useWindow takes the whole pooled buffer: the class is a power of two, so
// the spare room saves growing later.
func (d *Decoder) useWindow() {
	b := (*d.winp)[:cap(*d.winp)]
	ws := int64(len(b))
	if ws > d.dict {
		ws = d.dict
	}
	d.wsize = int(ws)
	d.win = b[:d.wsize]
}

// grow enlarges a linear (never wrapped) window, keeping its contents.
func (d *Decoder) grow() {
	n := int64(d.wsize) * 2
	if min := int64(d.w) + maxIncLZMatch + 1; n < min {
		n = min
	}
	if n > d.dict {
		n = d.dict
	}
	np := pool.Get(int(n))
	copy((*np)[:cap(*np)], d.win[:d.w])
	pool.Put(d.winp)
	d.winp = np
	d.useWindow()
}

// linear reports whether the window has never wrapped: it is smaller than
// the dictionary and may still grow.
func (d *Decoder) linear() bool { return int64(d.wsize) < d.dict }

// Read implements io.Reader. It returns io.EOF after the entry's last byte.
func (d *Decoder) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(d.out) == 0 {
		d.fillOut()
		if len(d.out) == 0 {
			return 0, d.err
		}
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// WriteTo implements io.WriterTo, writing straight from the window.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for {
		if len(d.out) == 0 {
			d.fillOut()
			if len(d.out) == 0 {
				if d.err == io.EOF {
					return n, nil
				}
				return n, d.err
			}
		}
		k, err := w.Write(d.out)
		n += int64(k)
		d.out = d.out[k:]
		if err != nil {
			return n, err
		}
	}
}

var errClosed = errors.New("unpack50: read after Close")

// Close returns the window, tables and buffers to their pools. The
// decoder may be Reset again afterwards (non-solid).
func (d *Decoder) Close() error {
	if d.pl != nil {
		d.pl.stop()
	}
	d.br.release()
	pool.Put(d.winp)
	pool.Put(d.fbufp)
	pool.Put(d.fdstp)
	tablePool.Put(d.t)
	*d = Decoder{filters: d.filters[:0], err: errClosed, filtersRun: d.filtersRun}
	return nil
}

// fillOut makes d.out non-empty or sets d.err.
func (d *Decoder) fillOut() {
	for len(d.out) == 0 && d.err == nil {
		if d.emit() {
			return
		}
		if d.streamDone {
			d.err = d.finish()
			return
		}
		if d.cpFn != nil && d.rpos-d.entryStart >= d.cpNext && d.CanCheckpoint() {
			d.cpNext = d.cpFn(d)
		}
		bp, tot := d.progress(), d.total
		if err := d.decode(); err != nil {
			d.err = err
			return
		}
		if !d.streamDone && d.progress() == bp && d.total == tot {
			d.err = errs.Corrupt("rar5: decoder made no progress")
		}
	}
}

// progress changes whenever decode consumes input or tokens.
func (d *Decoder) progress() int64 {
	if d.pl != nil {
		return d.br.bitPos() + d.pl.applied
	}
	return d.br.bitPos()
}

// finish ends the entry once the stream has ended. Like unrar it does not
// insist on the declared size: a stream that ends early, or whose last
// filter reaches past the data, yields what was produced (unrar writes the
// same bytes), and the container's size and checksum checks judge it.
func (d *Decoder) finish() error {
	return io.EOF
}

// emit points d.out at the next bytes ready for the caller: window bytes
// up to the next filter, or a filter's output once its block is complete.
func (d *Decoder) emit() bool {
	if d.rpos >= d.entryEnd && d.total > d.rpos {
		// Bytes past the declared size are dropped, as unrar does; so
		// are filters for them.
		d.rpos, d.ridx = d.total, d.w
		d.filters, d.fhead, d.fgot = d.filters[:0], 0, 0
	}
	for {
		avail := d.total
		if avail > d.entryEnd {
			avail = d.entryEnd
		}
		var f *filter
		if d.fhead < len(d.filters) {
			f = &d.filters[d.fhead]
			if f.start >= d.entryEnd || d.streamDone && f.start >= d.total {
				// Starts beyond the data: unrar never applies it and
				// writes the bytes before it as they are.
				d.filters, d.fhead, d.fgot = d.filters[:0], 0, 0
				f = nil
			}
		}
		if f != nil && f.start <= d.rpos {
			need := f.length - d.fgot
			if d.fgot == 0 {
				d.fbufp = growBuf(d.fbufp, f.length)
			}
			if n := int(min(avail-d.rpos, int64(need))); n > 0 {
				d.gather(n)
			}
			if d.fgot < f.length {
				return false
			}
			out := d.applyFilter(f)
			d.fhead++
			d.fgot = 0
			if d.fhead == len(d.filters) {
				d.filters, d.fhead = d.filters[:0], 0
			}
			if len(out) > 0 {
				d.out = out
				return true
			}
			continue
		}
		end := avail
		if f != nil && f.start < end {
			end = f.start
		}
		if end <= d.rpos {
			return false
		}
		n := int(min(end-d.rpos, int64(d.wsize-d.ridx)))
		d.out = d.win[d.ridx : d.ridx+n]
		d.advance(n)
		return true
	}
}

func (d *Decoder) advance(n int) {
	d.rpos += int64(n)
	d.ridx += n
	if d.ridx >= d.wsize {
		d.ridx -= d.wsize
	}
}

// gather moves n window bytes at rpos into the filter buffer.
func (d *Decoder) gather(n int) {
	buf := (*d.fbufp)[d.fgot : d.fgot+n]
	for len(buf) > 0 {
		k := copy(buf, d.win[d.ridx:d.wsize])
		buf = buf[k:]
		d.fgot += k
		d.advance(k)
	}
}
