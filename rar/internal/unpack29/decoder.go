// Package unpack29 decodes RAR 2.9 compression, the algorithm of RAR 3.x
// and 4.x archives (file header UNP_VER 29; also written by rar 5+ with
// -ma4): LZ77 with four canonical Huffman tables, PPMd variant H blocks
// that alternate with LZ blocks in one stream, and the standard RarVM
// filters (E8, E8E9, Itanium, Delta, RGB, Audio) applied to blocks of the
// output.
//
// The decoder follows unrar's unpack30.cpp for the bit-stream facts and
// rejects what unrar would silently mangle: distances before the start of
// the stream, over-subscribed tables, filter blocks that overlap.
//
// # Security
//
// The window is min(dictionary, data still to come) rounded up to a power
// of two, never more than 4 MiB (the largest distance the format can
// express). A PPMd block declares its model size (up to 256 MiB); it is
// checked against Decoder.MaxMemory before anything is allocated. Filter
// blocks are bounded by the 256 KiB RarVM memory, and the number of
// filters by unrar's own limits.
package unpack29

import (
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

const (
	// maxWindow is the largest distance RAR 2.9 can encode (4 MiB).
	maxWindow = 4 << 20
	minWindow = rarbits.MinWindow
	// margin is window room for one symbol's output (the longest copy is
	// under 300 bytes in every version).
	margin = rarbits.Margin
)

// DefaultMaxMemory is the PPMd model size a block may declare when
// Decoder.MaxMemory is zero: RAR's format maximum, 256 MiB.
const DefaultMaxMemory = 256 << 20

// Decoder decodes one RAR 2.9 stream, entry by entry. The zero value is
// not usable; call NewDecoder, then Reset for each entry.
type Decoder struct {
	// MaxMemory caps the PPMd model a block header may ask for (bytes);
	// 0 means DefaultMaxMemory. A larger request fails with errs.ErrLimit
	// before anything is allocated. Set it before decoding, e.g. from
	// arc.Limits.MaxMemory.
	MaxMemory int64

	br bitReader

	winp *[]byte
	win  []byte
	mask int64 // len(win)-1
	dict int64 // window cap for this stream

	pos   int64 // bytes decoded since the (solid) stream began
	wr    int64 // bytes flushed: written out, or dropped past the entry end
	start int64 // first position of the current entry
	end   int64 // start + unpacked size; math.MaxInt64 when unknown
	size  int64 // unpacked size of the entry; -1 unknown

	out     []byte // output ready for the caller
	err     error  // sticky; io.EOF once the entry is complete
	done    bool   // the entry's compressed data is finished
	short   error  // why decoding stopped before the declared size, if it did
	header  bool   // a block header must be read before the first symbol
	started bool   // a stream is in progress (solid continuation possible)

	lz  lzState
	ppm ppmState
	flt filterState
}

// NewDecoder returns a Decoder ready for Reset.
func NewDecoder() *Decoder { return new(Decoder) }

// Reset prepares d to decode one entry whose packed data (already
// decrypted and joined across volumes) is read from src. dictSize is the
// dictionary the header declares, unpackedSize the bytes this entry
// produces (-1 if unknown). With solid set the entry continues the
// previous one's window, tables, PPMd model and filters; if the previous
// entry was not read to its end, Reset first decodes (and drops) the rest
// of it from its own source.
func (d *Decoder) Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error {
	if solid && d.started && d.err == nil {
		if err := d.drain(); err != nil {
			return err
		}
	}
	if solid && d.started && d.err != io.EOF {
		return errs.Corrupt("rar v29: solid entry follows a broken one")
	}
	if dictSize <= 0 || dictSize > maxWindow {
		dictSize = maxWindow
	}
	// A filter block (up to the VM's 256 KiB) must fit in the window with
	// room to spare, whatever the dictionary; unrar's window is never
	// smaller either. Small entries still get small windows (sizeWindow).
	dictSize = max(dictSize, 2*vmMemSize)
	d.br.Reset(src)
	d.out = nil
	d.err = nil
	d.done = false
	d.short = nil
	d.size = unpackedSize
	if !solid || !d.started {
		d.dict = dictSize
		d.pos, d.wr = 0, 0
		d.lz.reset()
		d.ppm.reset()
		d.flt.reset()
	} else {
		if dictSize > d.dict {
			d.dict = dictSize
		}
		d.flt.newEntry()
	}
	// unrar reads a block header at the start of every non-solid entry and
	// of a solid one whose predecessor ended with "new tables follow" or
	// in a PPMd block (ReadTables30 leaves TablesRead clear for PPMd).
	d.header = !solid || !d.lz.tablesRead
	d.started = true
	d.start = d.pos
	d.wr = d.pos
	d.end = math.MaxInt64
	if unpackedSize >= 0 && unpackedSize < math.MaxInt64-d.pos {
		d.end = d.pos + unpackedSize
	}
	d.sizeWindow(solid)
	return nil
}

// sizeWindow makes the window hold min(dictionary, everything the stream
// can still reference), growing it (and keeping its history) for a solid
// continuation.
func (d *Decoder) sizeWindow(solid bool) {
	d.winp, d.win = rarbits.SizeWindow(d.winp, d.win, d.pos, d.dict, d.size, solid)
	d.mask = int64(len(d.win)) - 1
}

// Read implements io.Reader.
func (d *Decoder) Read(p []byte) (int, error) {
	return rarbits.ReadOut(p, &d.out, &d.err, d.step)
}

// WriteTo implements io.WriterTo, writing straight from the window.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) {
	return rarbits.WriteOut(w, &d.out, &d.err, d.step)
}

// Close returns the window and buffers to the pool. The Decoder may be
// Reset again afterwards (non-solid).
func (d *Decoder) Close() error {
	if d.winp != nil {
		pool.Put(d.winp)
		d.winp, d.win = nil, nil
	}
	d.br.Release()
	d.flt.release()
	d.ppm.release()
	d.started = false
	d.out = nil
	if d.err == nil {
		d.err = errs.Corrupt("rar v29: decoder closed")
	}
	return nil
}

// drain decodes the rest of the current entry, dropping the output.
func (d *Decoder) drain() error {
	for d.err == nil {
		d.out = nil
		d.step()
	}
	d.out = nil
	if d.err == io.EOF {
		return nil
	}
	return d.err
}

// step makes progress: it hands out flushed output if any is ready, else
// decodes more, else ends the entry.
func (d *Decoder) step() {
	if d.wr < d.pos {
		ok, err := d.chunk()
		if err != nil {
			d.err = err
			return
		}
		if ok {
			return
		}
	}
	if d.done {
		d.finish()
		return
	}
	limit := d.wr + int64(len(d.win)) - margin
	if d.pos >= limit {
		// The window is full of output held back by a filter whose block
		// does not fit in it.
		d.err = errs.Corrupt("rar v29: filter block larger than the window")
		return
	}
	if d.end < math.MaxInt64 && limit > d.end+1 {
		limit = d.end + 1
	}
	if err := d.decode(limit); err != nil {
		d.err = err
	}
}

// finish runs once the compressed data is over and all output is out.
func (d *Decoder) finish() {
	if d.flt.blocked(d.pos) {
		d.err = errs.Corrupt("rar v29: filter block runs past the end of the data")
		return
	}
	if d.size >= 0 && d.pos-d.start < d.size {
		if d.short != nil {
			d.err = d.short
		} else {
			d.err = errs.Corrupt("rar v29: data ends %d bytes before the declared size", d.size-(d.pos-d.start))
		}
		return
	}
	d.err = io.EOF
}

// decode fills the window up to limit or the end of the entry's data.
func (d *Decoder) decode(limit int64) error {
	for d.pos < limit && !d.done {
		var err error
		if d.header {
			d.header = false
			err = d.readTables()
		} else if d.ppm.active {
			err = d.decodePPM(limit)
		} else {
			err = d.decodeLZ(limit)
		}
		if err == errOverrun {
			// The input ran out. That is the normal end of a stream
			// without an end marker once the declared size is reached.
			d.done = true
			if d.size < 0 || d.pos-d.start >= d.size {
				return nil
			}
			d.short = d.br.InputErr()
			return nil
		}
		if err != nil {
			return err
		}
	}
	if d.pos > d.end {
		// More output than declared: unrar stops here too.
		d.done = true
	}
	return nil
}

// chunk moves the next piece of flushed data into d.out, running filters
// whose blocks are complete. It reports false when a filter still waits
// for its block to be decoded.
func (d *Decoder) chunk() (bool, error) {
	lim := d.pos
	if f := d.flt.head0(); f != nil && f.start < lim {
		if d.wr < f.start {
			lim = f.start
		} else {
			if f.start+int64(f.length) > d.pos {
				return false, nil
			}
			out, err := d.runFilters()
			if err != nil {
				return false, err
			}
			d.emit(out, d.wr)
			d.wr += int64(len(out))
			return true, nil
		}
	}
	i := int(d.wr & d.mask)
	n := int(min(lim-d.wr, int64(len(d.win)-i)))
	d.emit(d.win[i:i+n], d.wr)
	d.wr += int64(n)
	return true, nil
}

// emit hands b, which holds positions [at, at+len(b)), to the caller,
// dropping whatever lies past the end of the entry.
func (d *Decoder) emit(b []byte, at int64) {
	if at >= d.end {
		d.out = nil
		return
	}
	if rem := d.end - at; int64(len(b)) > rem {
		b = b[:rem]
	}
	d.out = b
}
