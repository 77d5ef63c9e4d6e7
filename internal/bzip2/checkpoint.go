package bzip2

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Decoder checkpoints. Blocks are independent: between two blocks the
// decoder's whole state is where the next block's magic starts (in
// bits: blocks need not start on a byte), the block size level of the
// stream (from its header) and the combined stream CRC of the blocks so
// far, which the end-of-stream record is checked against. No window.
//
// State layout, version 1: u8 version, u8 level (1..9), u32 LE combined
// stream CRC.
const checkpointVersion = 1

// CheckpointStateSize is the size of the state Checkpoint appends.
const CheckpointStateSize = 6

// Serial makes z decode on the caller's goroutine only (no parallel
// workers or shared tokens), so that it stops between blocks and can
// checkpoint. Call it before the first Read.
func (z *Reader) Serial() {
	if z.st == stHeader && z.streams == 0 {
		z.cfg.workers, z.cfg.tokens = 1, nil
	}
}

// Total returns the output decoded and handed out so far (from the
// stream's start, also after ResetAt).
func (z *Reader) Total() int64 { return z.total }

// CanCheckpoint reports whether Checkpoint may be taken now: between two
// blocks of a stream, all output handed out, with a further block (not
// the end of the stream) next.
func (z *Reader) CanCheckpoint() bool {
	if z.err != nil || z.st != stBlock {
		return false
	}
	m, ok := z.br.peek48()
	return ok && m == blockMagic
}

// CheckpointSize is the size of the state Checkpoint appends.
func (z *Reader) CheckpointSize() int { return CheckpointStateSize }

// Checkpoint appends the state to dst (see CanCheckpoint) and returns it
// with the output offset and the input offset, in bits from the start
// of the stream, of the next block's magic. ResetAt resumes from it.
func (z *Reader) Checkpoint(dst []byte) (state []byte, out, inBits int64) {
	c := z.streamCRC
	dst = append(dst, checkpointVersion, byte(z.blockSize/100_000), byte(c), byte(c>>8), byte(c>>16), byte(c>>24))
	return dst, z.total, z.br.bitPos()
}

// ResetAt makes z resume a stream from a checkpoint: r must deliver the
// input from byte inBits/8 of the stream; the first inBits%8 bits of
// that byte are skipped, and a block magic must follow. out is the
// checkpoint's output offset. opts apply as for Reset, but the reader
// always decodes serially. Every later block's CRC is checked, and at
// the end of the stream the combined CRC from the kept value. A state
// that does not fit, or no block magic at inBits, is ErrCorrupt; a
// block size above MaxMemory is ErrLimit.
func (z *Reader) ResetAt(r io.Reader, state []byte, out, inBits int64, opts ...Option) error {
	if err := z.Reset(r, opts...); err != nil {
		return err
	}
	z.cfg.workers, z.cfg.tokens = 1, nil
	if len(state) != CheckpointStateSize || state[0] != checkpointVersion || out < 0 || inBits < 0 {
		z.err = errs.Corrupt("bzip2: checkpoint does not fit the stream")
		return z.err
	}
	level := int(state[1])
	if level < 1 || level > 9 {
		z.err = errs.Corrupt("bzip2: checkpoint with block size level %d", level)
		return z.err
	}
	if z.cfg.maxMem > 0 && Memory(level) > z.cfg.maxMem {
		z.err = errs.Limit("bzip2: block size %d00k needs %d bytes, above MaxMemory (%d)", level, Memory(level), z.cfg.maxMem)
		return z.err
	}
	z.br.off = inBits / 8
	if skip := uint(inBits % 8); skip > 0 {
		if _, err := z.br.bits(skip, "checkpoint"); err != nil {
			z.err = err
			return err
		}
	}
	if m, ok := z.br.peek48(); !ok || m != blockMagic {
		if z.br.err != nil {
			z.err = z.br.err
		} else {
			z.err = errs.Corrupt("bzip2: no block at the checkpoint")
		}
		return z.err
	}
	z.st, z.streams = stBlock, 1
	z.blockSize = level * 100_000
	z.streamCRC = uint32(state[2]) | uint32(state[3])<<8 | uint32(state[4])<<16 | uint32(state[5])<<24
	z.total = out
	return nil
}

// peek48 returns the next 48 bits without consuming them; false when
// the input holds fewer.
func (b *bitReader) peek48() (uint64, bool) {
	if b.n < 48 {
		b.fill()
		if b.n < 48 {
			return 0, false
		}
	}
	return b.v >> (b.n - 48) & (1<<48 - 1), true
}
