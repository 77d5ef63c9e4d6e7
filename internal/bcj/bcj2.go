package bcj

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// BCJ2 decodes 7-Zip's four-stream x86 filter. The main stream holds the
// code with the operands of converted E8 (call), E9 (jmp) and 0F 8x (jcc)
// removed; a range-coded bit stream says, for each candidate opcode,
// whether its operand was moved; moved operands are absolute big-endian
// addresses in the call stream (E8) or the jump stream (the others).
type BCJ2 struct {
	in    [4]bcj2In // main, call, jump, range coder
	size  int64     // output bytes still to produce; -1 unknown
	out   int64     // output bytes produced (from the stream's start)
	pause int64     // Read returns after a main fill at or past this output; -1 never
	pos   uint32
	prev  byte
	rng   uint32
	code  uint32
	probs [2 + 256]uint16
	pend  [4]byte // operand bytes decoded but not yet returned
	npend int
	ppos  int
	init  bool
	err   error
}

// BCJ2BufSize is the buffer BCJ2 reads input i (0 main, 1 call, 2 jump,
// 3 range coder) through, one Read per fill: a decoder feeding it that
// decodes at most this much per step (lzma.StepSize) has handed out all
// it decoded after each fill, so a checkpoint can be taken there.
func BCJ2BufSize(i int) int {
	if i == 0 {
		return 32 << 10
	}
	return 4 << 10
}

// bcj2In is one input of BCJ2: a buffer filled by one Read at a time,
// so what it holds is exactly what its source handed out and BCJ2 has
// not used yet (Held, a checkpoint's).
type bcj2In struct {
	r    io.Reader
	buf  []byte
	i, n int
	err  error
}

func (s *bcj2In) reset(r io.Reader, size int) {
	if cap(s.buf) < size {
		s.buf = make([]byte, size)
	}
	*s = bcj2In{r: r, buf: s.buf[:size]}
}

// fill reads once into the empty buffer (a source that returns nothing
// many times in a row has stopped making progress).
func (s *bcj2In) fill() error {
	s.i, s.n = 0, 0
	for tries := 0; s.err == nil; tries++ {
		n, err := s.r.Read(s.buf)
		s.n, s.err = n, err
		if n > 0 {
			return nil
		}
		if tries == 100 {
			s.err = io.ErrNoProgress
		}
	}
	return s.err
}

func (s *bcj2In) readByte() (byte, error) {
	if s.i == s.n {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	c := s.buf[s.i]
	s.i++
	return c, nil
}

const (
	bcj2TopValue  = 1 << 24
	bcj2ModelBits = 11
	bcj2MoveBits  = 5
)

// NewBCJ2 returns a decoder over the main, call, jump and range-coder
// streams producing size bytes (size < 0: until the main stream ends).
func NewBCJ2(main, call, jump, rc io.Reader, size int64) *BCJ2 {
	d := new(BCJ2)
	d.reset([4]io.Reader{main, call, jump, rc}, size)
	return d
}

func (d *BCJ2) reset(in [4]io.Reader, size int64) {
	bufs := d.in
	*d = BCJ2{in: bufs, size: size, pause: -1}
	for i := range d.in {
		d.in[i].reset(in[i], BCJ2BufSize(i))
	}
	for i := range d.probs {
		d.probs[i] = 1 << (bcj2ModelBits - 1)
	}
}

func (d *BCJ2) rcByte() (byte, error) {
	c, err := d.in[3].readByte()
	if err != nil {
		return 0, errs.EOF(errs.EOF(err, ""), "BCJ2 range coder stream")
	}
	return c, nil
}

// bit decodes one bit with probability p.
func (d *BCJ2) bit(p *uint16) (bool, error) {
	if d.rng < bcj2TopValue {
		c, err := d.rcByte()
		if err != nil {
			return false, err
		}
		d.rng <<= 8
		d.code = d.code<<8 | uint32(c)
	}
	bound := (d.rng >> bcj2ModelBits) * uint32(*p)
	if d.code < bound {
		d.rng = bound
		*p += (1<<bcj2ModelBits - *p) >> bcj2MoveBits
		return false, nil
	}
	d.rng -= bound
	d.code -= bound
	*p -= *p >> bcj2MoveBits
	return true, nil
}

// PauseAt makes Read return early (with what it has) right after it
// refills the main stream at or past output offset out, where the
// inputs' decoders may be able to take a checkpoint; out < 0: never.
func (d *BCJ2) PauseAt(out int64) { d.pause = out }

// Total is the output produced so far, counted from the stream's start.
func (d *BCJ2) Total() int64 { return d.out }

// Read decodes into p.
func (d *BCJ2) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if !d.init {
		d.init = true
		d.rng = 0xFFFFFFFF
		for i := 0; i < 5; i++ {
			c, err := d.rcByte()
			if err != nil {
				d.err = err
				return 0, err
			}
			d.code = d.code<<8 | uint32(c)
		}
	}
	n := 0
	m := &d.in[0]
	for n < len(p) {
		if d.size == 0 {
			break
		}
		if d.ppos < d.npend {
			p[n] = d.pend[d.ppos]
			d.ppos++
			n++
			d.pos++
			d.size--
			continue
		}
		if m.i == m.n {
			if n > 0 && d.pause >= 0 && d.out+int64(n) >= d.pause {
				break // let the caller take a checkpoint before the fill
			}
			if err := m.fill(); err == io.EOF {
				if d.size > 0 {
					d.err = errs.Truncated("BCJ2 main stream")
					break
				}
				d.err = io.EOF
				break
			} else if err != nil {
				d.err = err
				break
			}
		}
		b := m.buf[m.i]
		m.i++
		p[n] = b
		n++
		d.pos++
		d.size--
		prev := d.prev
		d.prev = b
		if !(b&0xFE == 0xE8 || prev == 0x0F && b&0xF0 == 0x80) {
			continue
		}
		if d.size == 0 {
			break
		}
		var prob *uint16
		switch {
		case b == 0xE8:
			prob = &d.probs[prev]
		case b == 0xE9:
			prob = &d.probs[256]
		default:
			prob = &d.probs[257]
		}
		moved, err := d.bit(prob)
		if err != nil {
			d.err = err
			break
		}
		if !moved {
			continue
		}
		src := &d.in[2]
		if b == 0xE8 {
			src = &d.in[1]
		}
		var op [4]byte
		for k := range op {
			if op[k], err = src.readByte(); err != nil {
				break
			}
		}
		if err != nil {
			d.err = errs.EOF(errs.EOF(err, ""), "BCJ2 call/jump stream")
			break
		}
		dest := binary.BigEndian.Uint32(op[:]) - (d.pos + 4)
		binary.LittleEndian.PutUint32(d.pend[:], dest)
		d.npend, d.ppos = 4, 0
		d.prev = byte(dest >> 24)
	}
	d.out += int64(n)
	if n == 0 && d.size == 0 {
		d.err = io.EOF
	}
	if n == 0 && d.err != nil {
		return 0, d.err
	}
	return n, nil
}
