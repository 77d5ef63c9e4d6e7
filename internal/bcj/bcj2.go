package bcj

import (
	"bufio"
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
	main  *bufio.Reader
	call  *bufio.Reader
	jump  *bufio.Reader
	rc    *bufio.Reader
	size  int64 // output bytes still to produce; -1 unknown
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

const (
	bcj2TopValue  = 1 << 24
	bcj2ModelBits = 11
	bcj2MoveBits  = 5
)

// NewBCJ2 returns a decoder over the main, call, jump and range-coder
// streams producing size bytes (size < 0: until the main stream ends).
func NewBCJ2(main, call, jump, rc io.Reader, size int64) *BCJ2 {
	d := &BCJ2{
		main: bufio.NewReaderSize(main, 32<<10),
		call: bufio.NewReaderSize(call, 4<<10),
		jump: bufio.NewReaderSize(jump, 4<<10),
		rc:   bufio.NewReaderSize(rc, 4<<10),
		size: size,
	}
	for i := range d.probs {
		d.probs[i] = 1 << (bcj2ModelBits - 1)
	}
	return d
}

func (d *BCJ2) rcByte() (byte, error) {
	c, err := d.rc.ReadByte()
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
		b, err := d.main.ReadByte()
		if err == io.EOF {
			if d.size > 0 {
				d.err = errs.Truncated("BCJ2 main stream")
				return n, d.err
			}
			d.err = io.EOF
			break
		}
		if err != nil {
			d.err = err
			return n, err
		}
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
			return n, err
		}
		if !moved {
			continue
		}
		src := d.jump
		if b == 0xE8 {
			src = d.call
		}
		var op [4]byte
		if _, err := io.ReadFull(src, op[:]); err != nil {
			d.err = errs.EOF(err, "BCJ2 call/jump stream")
			return n, d.err
		}
		dest := binary.BigEndian.Uint32(op[:]) - (d.pos + 4)
		binary.LittleEndian.PutUint32(d.pend[:], dest)
		d.npend, d.ppos = 4, 0
		d.prev = byte(dest >> 24)
	}
	if n == 0 && d.size == 0 {
		d.err = io.EOF
	}
	if n == 0 && d.err != nil {
		return 0, d.err
	}
	return n, nil
}
