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
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

const (
	// margin is window room for one symbol's output.
	margin = rarbits.Margin
)

// DefaultMaxMemory is the PPMd model size a block may declare when
// Decoder.MaxMemory is zero: RAR's format maximum, 256 MiB.
const DefaultMaxMemory = 256 << 20

// Decoder decodes one RAR 2.9 stream, entry by entry. The zero value is
// not usable; call NewDecoder, then Reset for each entry.
type Decoder struct {
	// MaxMemory caps the memory of the PPMd model a block header may ask
	// for, with its tables (ppmd.Overhead), in bytes; 0 means no cap but
	// the format's (DefaultMaxMemory). A larger request fails with errs.ErrLimit
	// before anything is allocated. Set it before decoding, e.g. from
	// arc.Limits.MaxMemory.
	MaxMemory int64

	rarbits.Stream // window, positions, Read, WriteTo
	br             bitReader

	short  error // why decoding stopped before the declared size, if it did
	header bool  // a block header must be read before the first symbol

	lz  lzState
	ppm ppmState
	flt filterState

	cpNext int64                // entry offset of the next checkpoint (checkpoint.go)
	cpFn   func(*Decoder) int64 // the checkpoint hook, or nil
}

// NewDecoder returns a Decoder ready for Reset.
func NewDecoder() *Decoder {
	d := new(Decoder)
	d.Init(d, "rar v29")
	return d
}

// Reset prepares d to decode one entry whose packed data (already
// decrypted and joined across volumes) is read from src. dictSize is the
// dictionary the header declares, unpackedSize the bytes this entry
// produces (-1 if unknown). With solid set the entry continues the
// previous one's window, tables, PPMd model and filters; if the previous
// entry was not read to its end, Reset first decodes (and drops) the rest
// of it from its own source. (Its opening, the calls into rarbits.Stream,
// is unpack15's and unpack20's too: what the decoders share lives in
// Stream, and each Reset goes on with its own state.)
func (d *Decoder) Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error {
	d.cpFn = nil
	if err := d.Continue(solid); err != nil {
		return err
	}
	if dictSize <= 0 || dictSize > rarbits.MaxWindow {
		dictSize = rarbits.MaxWindow
	}
	d.br.Reset(src)
	d.short = nil
	// A filter block (up to the VM's 256 KiB) must fit in the window with
	// room to spare, whatever the dictionary; unrar's window is never
	// smaller either. Small entries still get small windows.
	if d.Begin(max(dictSize, 2*vmMemSize), unpackedSize, solid) {
		d.lz.reset()
		d.ppm.reset()
		d.flt.reset()
	} else {
		d.flt.newEntry()
	}
	// unrar reads a block header at the start of every non-solid entry and
	// of a solid one whose predecessor ended with "new tables follow" or
	// in a PPMd block (ReadTables30 leaves TablesRead clear for PPMd).
	d.header = !solid || !d.lz.tablesRead
	return nil
}

// Close returns the window and buffers to the pool. The Decoder may be
// Reset again afterwards (non-solid).
func (d *Decoder) Close() error {
	d.cpFn = nil
	d.Release()
	d.br.Release()
	d.flt.release()
	d.ppm.release()
	return nil
}

// Step is for rarbits.Stream: it hands out flushed output if any is
// ready, else decodes more, else ends the entry.
func (d *Decoder) Step() {
	if d.cpFn != nil && d.Wr-d.Start >= d.cpNext && d.CanCheckpoint() {
		d.cpNext = d.cpFn(d)
	}
	if d.Wr < d.Pos {
		ok, err := d.chunk()
		if err != nil {
			d.Err = err
			return
		}
		if ok {
			return
		}
	}
	if d.Done {
		d.finish()
		return
	}
	limit := d.Wr + int64(len(d.Win)) - margin
	if d.Pos >= limit {
		// The window is full of output held back by a filter whose block
		// does not fit in it.
		d.Err = errs.Corrupt("rar v29: filter block larger than the window")
		return
	}
	if d.End < math.MaxInt64 && limit > d.End+1 {
		limit = d.End + 1
	}
	if d.cpFn != nil {
		limit = d.cpLimit(limit)
	}
	var err error
	if d.ppm.guard {
		err = d.ppm.rar.Guard(func() error { return d.decode(limit) })
	} else {
		err = d.decode(limit)
	}
	if err != nil {
		d.Err = err
	}
}

// finish runs once the compressed data is over and all output is out.
func (d *Decoder) finish() {
	if d.flt.blocked(d.Pos) {
		d.Err = errs.Corrupt("rar v29: filter block runs past the end of the data")
		return
	}
	if d.Size >= 0 && d.Pos-d.Start < d.Size {
		if d.short != nil {
			d.Err = d.short
		} else {
			d.Err = errs.Corrupt("rar v29: data ends %d bytes before the declared size", d.Size-(d.Pos-d.Start))
		}
		return
	}
	d.Err = io.EOF
}

// decode fills the window up to limit or the end of the entry's data.
func (d *Decoder) decode(limit int64) error {
	for d.Pos < limit && !d.Done {
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
			d.Done = true
			if d.Size < 0 || d.Pos-d.Start >= d.Size {
				return nil
			}
			d.short = d.br.InputErr()
			return nil
		}
		if err != nil {
			return err
		}
	}
	if d.Pos > d.End {
		// More output than declared: unrar stops here too.
		d.Done = true
	}
	return nil
}

// chunk moves the next piece of flushed data into d.Out, running filters
// whose blocks are complete. It reports false when a filter still waits
// for its block to be decoded.
func (d *Decoder) chunk() (bool, error) {
	lim := d.Pos
	if f := d.flt.head0(); f != nil && f.start < lim {
		if d.Wr < f.start {
			lim = f.start
		} else {
			if f.start+int64(f.length) > d.Pos {
				return false, nil
			}
			out, err := d.runFilters()
			if err != nil {
				return false, err
			}
			d.Emit(out, d.Wr)
			d.Wr += int64(len(out))
			return true, nil
		}
	}
	d.Flush(lim)
	return true, nil
}
