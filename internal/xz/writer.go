package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/inorder"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// The checks a Writer can put after each block.
const (
	CheckCRC32  = checkCRC32
	CheckCRC64  = checkCRC64
	CheckSHA256 = checkSHA256
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Check is the check of every block: CheckCRC64 (as xz writes by
	// default), CheckCRC32 or CheckSHA256.
	Check byte
	// BlockSize is the uncompressed size of a block (0: three times the
	// dictionary, as xz -T does). Blocks are independent: decoders,
	// ours and xz -T0, decode them in parallel.
	BlockSize int64
	// Threads is how many blocks are encoded at once (0 or 1: on the
	// caller's goroutine). The output does not depend on it.
	Threads int
	// LZMA configures each block's LZMA2 encoder (one thread each).
	LZMA []lzma.WriterOption
}

// Writer writes the .xz format: a stream header, blocks of BlockSize
// bytes, each with the LZMA2 filter, both sizes in its header (so a
// reader can hand blocks to several goroutines) and its check, then the
// index and the stream footer, written by Close. A block is compressed
// whole before it is written, since its header holds its sizes: the
// writer holds up to Threads blocks of input and their output.
type Writer struct {
	w       io.Writer
	o       WriterOptions
	lzopts  [15]lzma.WriterOption
	nopts   int
	block   int // block size in bytes
	csize   int // check size
	cur     *wblock
	busy    inorder.Queue[*wblock] // being encoded
	free    []*wblock
	recs    []uint64 // unpadded size, uncompressed size of each block written
	started bool     // stream header written
	err     error
	closed  bool
}

// wblock is one block: its input, its encoded LZMA2 stream and the
// encoder that made it.
type wblock struct {
	in    *[]byte // pooled
	out   bytes.Buffer
	lz    *lzma.Writer2
	check [sha256.Size]byte
	err   error
	z     *Writer
}

// firstIn is the first input buffer of a block; it doubles up to the
// block size as the block fills, so a short stream does not take a
// whole block's memory.
const firstIn = 256 << 10

// NewWriter returns a Writer of one xz stream to w.
func NewWriter(w io.Writer, o WriterOptions) (*Writer, error) {
	z := &Writer{}
	if err := z.setup(o); err != nil {
		return nil, err
	}
	z.Reset(w)
	return z, nil
}

func (z *Writer) setup(o WriterOptions) error {
	switch o.Check {
	case CheckCRC32:
		z.csize = 4
	case CheckCRC64:
		z.csize = 8
	case CheckSHA256:
		z.csize = sha256.Size
	default:
		return fmt.Errorf("xz: %w: check %#x", errs.ErrInvalidOption, o.Check)
	}
	if len(o.LZMA) > len(z.lzopts) {
		return fmt.Errorf("xz: %w: %d LZMA options", errs.ErrInvalidOption, len(o.LZMA))
	}
	if o.BlockSize < 0 || o.Threads < 0 || o.Threads > 256 {
		return fmt.Errorf("xz: %w: block size %d, %d threads", errs.ErrInvalidOption, o.BlockSize, o.Threads)
	}
	z.nopts = copy(z.lzopts[:], o.LZMA)
	z.o = o
	z.o.LZMA = nil
	z.busy.Max = o.Threads
	bs := o.BlockSize
	if bs == 0 {
		// The dictionary the options choose: the encoder says it.
		lz, err := lzma.NewWriter2(io.Discard, z.lzopts[:z.nopts]...)
		if err != nil {
			return err
		}
		d, _ := lzma.DictSizeLZMA2(lz.DictByte())
		lz.Close()
		bs = 3 * d
	}
	z.block = int(min(max(bs, 4<<10), 1<<30))
	return nil
}

// Reset starts a new stream to w with the same options, keeping the
// buffers.
func (z *Writer) Reset(w io.Writer) {
	z.drain()
	z.w, z.err, z.closed, z.started = w, nil, false, false
	z.recs = z.recs[:0]
}

// Write compresses p.
func (z *Writer) Write(p []byte) (int, error) {
	if z.closed {
		return 0, errWriterClosed
	}
	n := 0
	for len(p) > 0 && z.err == nil {
		if z.cur == nil {
			z.cur = z.getBlock()
		}
		b := z.cur
		in := *b.in
		if len(in) == cap(in) {
			bigger := pool.Get(min(2*cap(in), z.block))
			*bigger = append((*bigger)[:0], in...)
			pool.Put(b.in)
			b.in, in = bigger, *bigger
		}
		k := min(cap(in)-len(in), z.block-len(in), len(p)) // the pool rounds capacities up
		*b.in = append(in, p[:k]...)
		p = p[k:]
		n += k
		if len(*b.in) == z.block {
			z.endBlock()
		}
	}
	return n, z.err
}

var errWriterClosed = errors.New("xz: writer closed")

func (z *Writer) getBlock() *wblock {
	var b *wblock
	if k := len(z.free); k > 0 {
		b = z.free[k-1]
		z.free = z.free[:k-1]
	} else {
		b = &wblock{}
	}
	b.in = pool.Get(min(firstIn, z.block))
	*b.in = (*b.in)[:0]
	return b
}

// endBlock encodes the current block: here with one thread, else on a
// goroutine of its own, writing out the oldest when Threads are busy.
func (z *Writer) endBlock() {
	b := z.cur
	z.cur = nil
	if b == nil {
		return
	}
	if z.o.Threads <= 1 {
		b.encode(z)
		z.emit(b)
		return
	}
	b.z = z
	if done, ok := z.busy.Add(b, encodeBlock); ok {
		z.emit(done)
	}
}

func encodeBlock(b *wblock) { b.encode(b.z) }

// encode compresses b.in into b.out and computes its check. It reads
// only z's options, which do not change while blocks are in flight.
func (b *wblock) encode(z *Writer) {
	in := *b.in
	switch z.o.Check {
	case CheckCRC32:
		binary.LittleEndian.PutUint32(b.check[:], crc32.ChecksumIEEE(in))
	case CheckCRC64:
		binary.LittleEndian.PutUint64(b.check[:], crc64.Update(0, crc64Table, in))
	case CheckSHA256:
		b.check = sha256.Sum256(in)
	}
	b.out.Reset()
	if b.lz == nil {
		b.lz, b.err = lzma.NewWriter2(&b.out, z.lzopts[:z.nopts]...)
	} else {
		b.err = b.lz.Reset(&b.out)
	}
	if b.err != nil {
		return
	}
	if _, b.err = b.lz.Write(in); b.err == nil {
		b.err = b.lz.Close()
	} else {
		b.lz.Close()
	}
}

// emit writes an encoded block (after the stream header, if not yet
// written) and gives it back to the free list.
func (z *Writer) emit(b *wblock) {
	defer func() {
		pool.Put(b.in)
		b.in = nil
		z.free = append(z.free, b)
	}()
	if z.err == nil && b.err != nil {
		z.err = b.err
	}
	if z.err != nil || !z.header() {
		return
	}
	// Block header (section 3.1): its size/4-1, flags (one filter, both
	// sizes present), compressed size, uncompressed size, the LZMA2
	// filter (ID 0x21, one property byte: the dictionary), zero padding
	// to a multiple of 4 with the CRC32, and the CRC32.
	var h [32]byte
	n := 2
	h[1] = 0x40 | 0x80
	n += putVLI(h[n:], uint64(b.out.Len()))
	n += putVLI(h[n:], uint64(len(*b.in)))
	h[n], h[n+1], h[n+2] = idLZMA2, 1, b.lz.DictByte()
	n += 3
	for n%4 != 0 {
		n++
	}
	h[0] = byte((n+4)/4 - 1)
	binary.LittleEndian.PutUint32(h[n:], crc32.ChecksumIEEE(h[:n]))
	n += 4
	var pad [4]byte
	padN := (4 - b.out.Len()%4) % 4
	if z.write(h[:n]) && z.write(b.out.Bytes()) && z.write(pad[:padN]) && z.write(b.check[:z.csize]) {
		z.recs = append(z.recs, uint64(n+b.out.Len()+z.csize), uint64(len(*b.in)))
	}
}

func (z *Writer) write(p []byte) bool {
	if z.err != nil {
		return false
	}
	if _, err := z.w.Write(p); err != nil {
		z.err = err
		return false
	}
	return true
}

// header writes the stream header once.
func (z *Writer) header() bool {
	if z.started {
		return true
	}
	z.started = true
	var h [headerSize]byte
	copy(h[:], headerMagic[:])
	h[7] = z.o.Check
	binary.LittleEndian.PutUint32(h[8:], crc32.ChecksumIEEE(h[6:8]))
	return z.write(h[:])
}

// Flush compresses what was written into a block of its own and writes
// it out, so a reader of the output so far decodes all of it (the
// stream still needs Close to be complete).
func (z *Writer) Flush() error {
	if z.closed {
		return errWriterClosed
	}
	if z.cur != nil && len(*z.cur.in) > 0 {
		z.endBlock()
	}
	for b, ok := z.busy.Next(); ok; b, ok = z.busy.Next() {
		z.emit(b)
	}
	return z.err
}

// Close writes the last block, the index and the stream footer. It does
// not close the underlying writer; the encoders' buffers go back to the
// pools.
func (z *Writer) Close() error {
	if z.closed {
		return z.err
	}
	z.Flush()
	z.closed = true
	if z.cur != nil {
		pool.Put(z.cur.in)
		z.cur.in = nil
		z.free = append(z.free, z.cur)
		z.cur = nil
	}
	if z.err != nil || !z.header() {
		return z.err
	}
	// Index (section 4): indicator 0, the number of records, each
	// record's unpadded and uncompressed sizes, padding, CRC32.
	bp := pool.Get(16 + len(z.recs)*10)
	idx := append((*bp)[:0], 0)
	idx = appendVLI(idx, uint64(len(z.recs)/2))
	for _, v := range z.recs {
		idx = appendVLI(idx, v)
	}
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	// Stream footer (section 2.1.2): CRC32 of the backward size and the
	// flags, the backward size (index size/4 - 1), the flags, "YZ".
	var f [headerSize]byte
	binary.LittleEndian.PutUint32(f[4:], uint32(len(idx)/4-1))
	f[9] = z.o.Check
	copy(f[10:], footerMagic[:])
	binary.LittleEndian.PutUint32(f[:4], crc32.ChecksumIEEE(f[4:10]))
	z.write(idx)
	z.write(f[:])
	*bp = idx
	pool.Put(bp)
	for _, b := range z.free {
		if b.out.Cap() > 1<<20 {
			b.out = bytes.Buffer{} // an idle writer keeps no block's output
		}
	}
	return z.err
}

// drain waits for blocks in flight and drops the current one (Reset
// after an error or without Close).
func (z *Writer) drain() {
	for b, ok := z.busy.Next(); ok; b, ok = z.busy.Next() {
		pool.Put(b.in)
		b.in = nil
		z.free = append(z.free, b)
	}
	if z.cur != nil {
		pool.Put(z.cur.in)
		z.cur.in = nil
		z.free = append(z.free, z.cur)
		z.cur = nil
	}
}

// putVLI writes v in the multibyte form of section 1.2 and returns its
// length.
func putVLI(b []byte, v uint64) int {
	n := 0
	for v >= 0x80 {
		b[n] = byte(v) | 0x80
		v >>= 7
		n++
	}
	b[n] = byte(v)
	return n + 1
}

func appendVLI(b []byte, v uint64) []byte {
	var t [10]byte
	return append(b, t[:putVLI(t[:], v)]...)
}
