package deflate

import (
	"bufio"
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Decoder states between calls.
const (
	stHeader = iota // next: a block header (or the end, after a final block)
	stStored        // inside a stored block, z.stored bytes left
	stHuff          // inside a Huffman block using z.lit and z.dist
	stDone          // the final block has ended
)

const (
	maxMatch = 258 // longest Deflate match; Deflate64 longer ones go through z.copyLen
	// margin is the room kept free behind z.full, so a match of up to
	// maxMatch may be copied eight bytes at a time without range checks.
	margin = maxMatch + 16
	// fastIn is the input the fast loop needs per symbol: two 8-byte loads
	// that advance at most 7 bytes each.
	fastIn = 16
)

var (
	errClosed   = errors.New("deflate: read after Close")
	errNoSource = errors.New("deflate: Reset with a nil source")
)

// peeker is a buffered source read without over-consuming: the decoder
// decodes from Peek'ed bytes and Discards exactly what it used.
type peeker interface {
	io.Reader
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Buffered() int
}

var (
	tablePool = pool.Of[tables]{}
	bufPool   = pool.Of[bufio.Reader]{New: func() *bufio.Reader { return bufio.NewReaderSize(nil, 64<<10) }}
)

// Reader decodes one Deflate or Deflate64 stream. Reset reuses it for the
// next stream; Close returns its scratch memory to the pools. A Reader is
// not safe for concurrent use.
type Reader struct {
	// Input. In slice mode (pk != nil) the decoder reads in[ip:], bytes
	// Peek'ed from pk; the whole bytes still in the bit buffer (nb/8) are
	// always in[ip-nb/8:ip], so they can be given back. In exact mode
	// (br != nil) bytes come one at a time and are read only when needed.
	src  io.Reader
	pk   peeker
	br   io.ByteReader
	own  *bufio.Reader // our wrapper (pooled), when src had no suitable interface
	seek io.Seeker     // src, when own wraps a seekable source
	in   []byte
	ip   int
	bits uint64 // bit buffer, LSB first; bits above nb are zero or the next input bits
	nb   uint   // valid bits in bits (< 64)
	eof  bool   // pk reported io.EOF
	rerr error  // read error from the source other than io.EOF

	// Output. out[:op] is decoded data; out[rp:op] has not been handed out
	// yet; out[op-win:op] is the history matches may refer to. Decoding
	// stops at full and the last win bytes slide to the front.
	wbuf *[]byte
	out  []byte
	op   int
	rp   int
	full int
	win  int
	hint int64 // expected output size, -1 if unknown (ResetSize)

	tabs     *tables
	lit      *tableLit
	dist     *tableDist
	d64      bool
	state    int
	final    bool
	stored   int // bytes left in the current stored block
	copyLen  int // Deflate64: bytes of a long match still to copy
	copyDist int
	err      error // sticky; io.EOF after the end of the stream

	// Checkpoints (checkpoint.go): disc counts the input bytes consumed
	// and let go of (discarded from the peeker, or read exactly), slid
	// the output bytes moved out of the front of out; pauseAt > 0 makes
	// decode stop at the first block boundary at or after that output
	// offset.
	disc    int64
	slid    int64
	pauseAt int64
}

// NewReader returns a Deflate decoder reading r.
func NewReader(r io.Reader) *Reader { z := new(Reader); z.Reset(r, false); return z }

// NewReader64 returns a Deflate64 decoder reading r.
func NewReader64(r io.Reader) *Reader { z := new(Reader); z.Reset(r, true); return z }

// Reset makes z decode a new stream from r (Deflate64 if d64), keeping
// its buffers. It may be called after Close.
func (z *Reader) Reset(r io.Reader, d64 bool) {
	win := 32 << 10
	if d64 {
		win = 64 << 10
	}
	wbuf, out := z.wbuf, z.out
	if wbuf != nil && z.win != win {
		pool.Put(wbuf)
		wbuf, out = nil, nil
	}
	own := z.own
	*z = Reader{src: r, own: own, wbuf: wbuf, out: out, win: win, d64: d64, tabs: z.tabs, hint: -1}
	if len(out) > 0 {
		z.full = len(out) - margin
	}
	if r == nil {
		z.err = errNoSource
		return
	}
	switch s := r.(type) {
	case peeker:
		z.pk = s
		return
	case io.ByteReader:
		if _, ok := r.(io.Seeker); !ok {
			z.br = s
			return
		}
	}
	if z.own == nil {
		z.own = bufPool.Get()
	}
	z.own.Reset(r)
	z.pk = z.own
	z.seek, _ = r.(io.Seeker)
}

// ResetSize is Reset for a stream expected to decode to size bytes (from
// a container header; -1 if unknown). If z has no buffer yet, a small
// stream gets one of about its size instead of four windows. The hint
// is not trusted: a stream that turns out longer moves to a full buffer.
func (z *Reader) ResetSize(r io.Reader, d64 bool, size int64) {
	z.Reset(r, d64)
	z.hint = size
}

// Close returns the window, tables and input buffer to their pools. Later
// reads fail until the next Reset. Close does not close the source.
func (z *Reader) Close() error {
	if z.wbuf != nil {
		pool.Put(z.wbuf)
	}
	if z.tabs != nil {
		tablePool.Put(z.tabs)
	}
	if z.own != nil {
		z.own.Reset(nil)
		bufPool.Put(z.own)
	}
	*z = Reader{err: errClosed}
	return nil
}

// Buffered returns the bytes the decoder read from a source that it had to
// wrap (see the package comment) and did not use. After the end of the
// stream these are the bytes that followed it, unless the decoder could
// seek the source back. The slice is valid until the next Read, Reset or
// Close; it is empty for sources the decoder reads exactly.
func (z *Reader) Buffered() []byte {
	if z.own == nil || z.pk != peeker(z.own) {
		return nil
	}
	b, _ := z.own.Peek(z.own.Buffered())
	return b[z.ip:]
}

// Read decodes into p. It returns io.EOF after the end of the stream, an
// error matching errs.ErrCorrupt for invalid data and one matching
// io.ErrUnexpectedEOF (errs.ErrTruncated) when the input ends too early.
func (z *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if z.rp < z.op {
			n := copy(p, z.out[z.rp:z.op])
			z.rp += n
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		z.decode()
	}
}

// WriteTo writes the decoded stream to w straight from the window, so
// io.Copy needs no intermediate buffer. It returns nil at the end of the
// stream.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.rp < z.op {
			n, err := w.Write(z.out[z.rp:z.op])
			z.rp += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			if z.rp < z.op {
				return total, io.ErrShortWrite
			}
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.decode()
	}
}

// decode makes room in the window and decodes until it is full, the
// stream ends or an error occurs. All output has been handed out.
func (z *Reader) decode() {
	if z.out == nil {
		size := 4 * z.win
		if z.hint >= 0 && z.hint < int64(size-margin) {
			size = int(z.hint) + margin + 1
		}
		z.setBuffer(pool.Get(size), 0)
	} else if z.op >= z.full {
		if len(z.out) < 4*z.win {
			// The size hint was too small: move to a full buffer.
			old, b := z.wbuf, pool.Get(4*z.win)
			z.slid += int64(max(0, z.op-z.win))
			z.setBuffer(b, copy(*b, z.out[max(0, z.op-z.win):z.op]))
			pool.Put(old)
		} else {
			// Keep the last window of history at the front.
			n := copy(z.out, z.out[z.op-z.win:z.op])
			z.slid += int64(z.op - n)
			z.op, z.rp = n, n
		}
	}
	for z.err == nil && z.op < z.full {
		switch z.state {
		case stHeader:
			if z.pauseAt > 0 && z.slid+int64(z.op) >= z.pauseAt {
				z.pauseAt = 0 // one pause: the caller may take a checkpoint now
				return
			}
			z.header()
		case stStored:
			z.storedData()
		case stHuff:
			z.huffman()
		}
	}
}

// setBuffer makes b the output buffer holding n bytes of history.
func (z *Reader) setBuffer(b *[]byte, n int) {
	z.wbuf, z.out = b, *b
	z.full = len(z.out) - margin
	z.op, z.rp = n, n
}

// finish ends the stream and leaves the source just after it.
func (z *Reader) finish() {
	z.state = stDone
	z.err = io.EOF
	if z.pk == nil {
		return // exact mode: the partial last byte is consumed, nothing else
	}
	z.ip -= int(z.nb >> 3)
	z.bits, z.nb = 0, 0
	z.pk.Discard(z.ip) // cannot fail: ip <= Buffered
	z.disc += int64(z.ip)
	z.in, z.ip = nil, 0
	if z.seek != nil {
		if n := z.own.Buffered(); n > 0 {
			if _, err := z.seek.Seek(int64(-n), io.SeekCurrent); err == nil {
				z.own.Reset(z.src)
			}
		}
	}
}

// short records that the input ended (or failed) where more was needed.
func (z *Reader) short() {
	if z.rerr != nil {
		z.err = z.rerr
		return
	}
	z.err = errs.Truncated("deflate stream")
}

func (z *Reader) corrupt(what string) {
	z.err = errs.Corrupt("deflate: %s", what)
}

// more refreshes in from the peeker: it discards what is fully consumed
// (keeping the whole bytes still in the bit buffer) and reads more when
// fewer than fastIn bytes are left. It reports whether any unread byte is
// available.
func (z *Reader) more() bool {
	if used := z.ip - int(z.nb>>3); used > 0 {
		z.pk.Discard(used)
		z.disc += int64(used)
		z.ip -= used
	}
	n := z.pk.Buffered()
	if n-z.ip < fastIn && !z.eof {
		_, err := z.pk.Peek(n + 1)
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			z.eof = true
		default:
			z.eof = true
			if err != io.ErrUnexpectedEOF {
				z.rerr = err
			}
		}
		n = z.pk.Buffered()
	}
	z.in, _ = z.pk.Peek(n)
	return z.ip < len(z.in)
}

// moreByte adds one input byte to the bit buffer.
func (z *Reader) moreByte() bool {
	var c byte
	if z.pk != nil {
		if z.ip >= len(z.in) && !z.more() {
			return false
		}
		c = z.in[z.ip]
		z.ip++
	} else {
		b, err := z.br.ReadByte()
		if err != nil {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				z.rerr = err
			}
			return false
		}
		z.disc++
		c = b
	}
	z.bits |= uint64(c) << z.nb
	z.nb += 8
	return true
}

// need makes at least n (<= 32) bits available, reading whole bytes only
// as needed.
func (z *Reader) need(n uint) bool {
	for z.nb < n {
		if !z.moreByte() {
			z.short()
			return false
		}
	}
	return true
}

// take consumes and returns n bits; need(n) must have succeeded.
func (z *Reader) take(n uint) uint32 {
	v := uint32(z.bits & (1<<n - 1))
	z.bits >>= n
	z.nb -= n
	return v
}

// sym decodes one symbol with table t (primary width pbits), reading a byte
// only when the code is known to be longer than the bits at hand, so exact
// sources are never read past the stream. It consumes the code (not its
// extra bits) and returns its entry.
func (z *Reader) sym(t []uint32, pbits uint) (uint32, bool) {
	for {
		e := t[z.bits&(1<<pbits-1)]
		if e&eSub != 0 {
			if z.nb > pbits {
				x := t[int(e>>16)+int(z.bits>>pbits)&(1<<(e>>eExtraShft&31)-1)]
				if n := uint(x & eLenMask); n <= z.nb {
					z.bits >>= n
					z.nb -= n
					return x, true
				}
			}
		} else if n := uint(e & eLenMask); n <= z.nb {
			z.bits >>= n
			z.nb -= n
			return e, true
		}
		if !z.moreByte() {
			z.short()
			return 0, false
		}
	}
}
