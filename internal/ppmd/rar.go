package ppmd

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// RAR PPMd block header (unrar model.cpp DecodeInit, 7-Zip Rar3Decoder.cpp
// InitPPM). It starts on a byte boundary of the v29 bit stream:
//
//	flags  u8   bit 7: PPMd block (the bit the unpacker tested)
//	            bit 6: a new escape character follows
//	            bit 5: reset the model; the memory byte follows
//	            bits 0-4: model order - 1 (orders above 16 are 16 + 3*(o-16))
//	mem    u8   model memory in MiB - 1 (only with bit 5)
//	esc    u8   escape character (only with bit 6)
//	code   4 x u8  range decoder start
const (
	rarFlagEsc   = 0x40
	rarFlagReset = 0x20
	rarOrderMask = 0x1F
	// RARMaxMemory is the largest model a RAR block header can ask for.
	RARMaxMemory = 256 << 20
)

// RAR decodes the PPMd blocks of a RAR 2.9/3.x (v29) stream. The v29
// unpacker owns the escape protocol; RAR only turns range-coded bytes into
// symbols with the model, which persists across blocks (and files of a
// solid archive) until a header resets it.
//
// Use: when the byte-aligned bit stream has its top bit set, call
// ReadHeader with the unpacker's byte source positioned at that byte, then
// call Decode for every symbol. The decoder reads exactly the bytes unrar
// reads, so after the block (escape, 0) the unpacker continues with the
// next byte of the same source. The zero value is ready to use.
type RAR struct {
	// MaxMemory caps the memory of the model a header may ask for with
	// its tables (Overhead), in bytes; 0 means no cap beyond the
	// format's (RARMaxMemory). Larger requests fail with errs.ErrLimit
	// before anything is allocated.
	MaxMemory int

	m     *Model
	rc    rangeDecoder
	ready bool // the model is initialised and no error broke it since
}

// ReadHeader reads a PPMd block header and starts the range decoder. It
// returns the new escape character, or -1 when the header keeps the
// previous one (the unpacker starts each non-solid file with 2). A header
// that does not reset the model continues the current one; without one
// (first block, or after an error) that is corrupt data.
func (d *RAR) ReadHeader(br io.ByteReader) (esc int, err error) {
	esc = -1
	flags, err := br.ReadByte()
	if err != nil {
		return esc, errs.EOF(err, "ppmd: RAR block header")
	}
	reset := flags&rarFlagReset != 0
	var maxMB byte
	if reset {
		if maxMB, err = br.ReadByte(); err != nil {
			return esc, errs.EOF(err, "ppmd: RAR block header")
		}
	} else if !d.ready {
		return esc, errs.Corrupt("ppmd: RAR block continues a model that does not exist")
	}
	if flags&rarFlagEsc != 0 {
		c, err := br.ReadByte()
		if err != nil {
			return esc, errs.EOF(err, "ppmd: RAR block header")
		}
		esc = int(c)
	}
	d.rc.setExact(br)
	if err := d.rc.initRAR(); err != nil {
		d.ready = false
		return esc, err
	}
	if !reset {
		return esc, nil
	}
	d.ready = false
	order := int(flags&rarOrderMask) + 1
	if order > 16 {
		order = 16 + (order-16)*3
	}
	if order == 1 {
		return esc, errs.Corrupt("ppmd: RAR model order 1")
	}
	mem := (int(maxMB) + 1) << 20
	// mem is at most RARMaxMemory (maxMB is a byte).
	if need := int64(mem) + Overhead(int64(mem)); d.MaxMemory > 0 && need > int64(d.MaxMemory) {
		return esc, errs.Limit("ppmd: RAR model needs %d MiB and %d bytes of tables", mem>>20, need-int64(mem))
	}
	if d.m == nil {
		d.m = modelPool.get()
	}
	if err := d.m.Init(order, mem); err != nil {
		return esc, err
	}
	d.ready = true
	return esc, nil
}

// Decode returns the next symbol of the current block. Errors are
// sticky until the next header that resets the model: corrupt data
// (including the order-0 escape that only an encoder bug or a corrupt
// stream produces) wraps errs.ErrCorrupt, input that ends wraps
// errs.ErrTruncated.
func (d *RAR) Decode() (byte, error) {
	if !d.ready {
		return 0, errs.Corrupt("ppmd: RAR decode without a model")
	}
	sym := d.m.decodeSymbol(&d.rc)
	if d.rc.err != nil {
		d.ready = false
		return 0, errs.EOF(d.rc.err, "ppmd: RAR block")
	}
	if sym < 0 {
		d.ready = false
		return 0, errs.Corrupt("ppmd: bad RAR PPMd symbol")
	}
	return byte(sym), nil
}

// Reset forgets the model, as for a new non-solid file: the next block
// must reset it. The arena is kept for reuse.
func (d *RAR) Reset() { d.ready = false }

// Close returns the model to the pool. The RAR value can be used again;
// its next block must reset the model.
func (d *RAR) Close() error {
	if d.m != nil {
		d.m.Release()
		modelPool.put(d.m)
		d.m = nil
	}
	d.ready = false
	d.rc = rangeDecoder{}
	return nil
}

// Checkpoints of a RAR stream's model (the v29 unpacker's, kind rar29):
// the same state as Reader7z's (checkpoint.go), taken between two
// symbols or between blocks while the model is kept for a later block
// that continues it. The range decoder reads exactly, so its input
// position is the unpacker's.

// Ready reports whether d holds a model a later block may continue (a
// header set one up and no error broke it since).
func (d *RAR) Ready() bool { return d.ready }

// CheckpointSize is the size of the state Checkpoint appends now (Ready
// must hold): up to the model's memory plus CheckpointOverhead.
func (d *RAR) CheckpointSize() int {
	v := d.m.vars()
	return v.stateSize()
}

// Checkpoint appends the model's and the range decoder's state to dst
// (Ready must hold).
func (d *RAR) Checkpoint(dst []byte) []byte {
	v := d.m.vars()
	return v.append(dst, &d.rc)
}

// Restore makes d continue from a state Checkpoint wrote, reading the
// next symbols from br. A model larger than MaxMemory is ErrLimit
// before its arena is allocated; a state whose order or memory no RAR
// header gives, or that fails the checks of checkpoint.go, is
// ErrCorrupt. Decode a restored model under Guard.
func (d *RAR) Restore(br io.ByteReader, state []byte) error {
	d.ready = false
	order, _, mem, err := stateHeader(state, false)
	if err != nil || order < MinOrder || order > MaxOrder || mem < 1<<20 || mem > RARMaxMemory || mem&(1<<20-1) != 0 {
		return errState
	}
	limit := d.MaxMemory
	if limit <= 0 || limit > RARMaxMemory {
		limit = RARMaxMemory
	}
	if int(mem) > limit {
		return errs.Limit("ppmd: RAR model needs %d MiB", mem>>20)
	}
	d.rc.setExact(br)
	d.rc.rar = true
	if d.m == nil {
		d.m = modelPool.get()
	}
	if err := d.m.restoreState(int(order), mem, state, &d.rc); err != nil {
		return err
	}
	d.ready = true
	return nil
}

// Guard runs fn, turning a fault of a model Restore loaded from a state
// that passed its checks but is still not one an encoder produces into
// ErrCorrupt (the model is then dropped).
func (d *RAR) Guard(fn func() error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			d.ready = false
			err = errs.Corrupt("ppmd: model restored from a checkpoint is inconsistent")
		}
	}()
	return fn()
}
