package unpack29

import (
	"errors"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
)

// ppmState is the PPMd side of the stream: whether the current block is
// PPMd, the escape byte that introduces control codes in it, and the
// model, which persists across blocks and solid entries until a block
// header resets it.
type ppmState struct {
	active bool
	used   bool // a PPMd block header was met in this stream (checkpoint.go)
	guard  bool // the model was restored from a checkpoint: decode it under Guard
	esc    byte
	rar    ppmd.RAR
}

func (p *ppmState) reset() {
	p.active = false
	p.used = false
	p.guard = false
	p.esc = 2
	p.rar.Reset()
}

func (p *ppmState) release() {
	p.rar.Close()
	p.active = false
}

// byteSource lets the range decoder read the byte-aligned bit stream. Past
// the end of the input it reports io.EOF.
type byteSource bitReader

func (s *byteSource) ReadByte() (byte, error) {
	b := (*bitReader)(s)
	c := b.Byte()
	if b.Overrun() {
		return 0, io.EOF
	}
	return c, nil
}

// startPPM reads a PPMd block header at the current (byte-aligned)
// position; the model's memory is checked against d.MaxMemory before it
// is allocated.
func (d *Decoder) startPPM() error {
	p := &d.ppm
	p.used = true
	p.rar.MaxMemory = int(d.ppmLimit()) // the model and its tables (ppmd.Overhead)
	esc, err := p.rar.ReadHeader((*byteSource)(&d.br))
	if err != nil {
		p.active = false
		return ppmErr(err)
	}
	if esc >= 0 {
		p.esc = byte(esc)
	}
	p.active = true
	return nil
}

// ppmLimit is the largest PPMd model a block may declare.
func (d *Decoder) ppmLimit() int64 {
	if d.MaxMemory <= 0 {
		return DefaultMaxMemory + ppmd.Overhead(DefaultMaxMemory)
	}
	// Not clamped to the format's 256 MiB: the limit covers the model's
	// tables too (ppmd.Overhead), and the header cannot ask for more.
	return d.MaxMemory
}

// ppmErr maps a truncation inside a PPMd block to the decoder's overrun.
func ppmErr(err error) error {
	if errors.Is(err, errs.ErrTruncated) {
		return errOverrun
	}
	return err
}

// decodePPM decodes PPMd symbols and their escape codes (unrar Unpack29,
// BLOCK_PPM): esc 0 ends the block, 2 the file, 3 brings a filter, 4 and 5
// are LZ matches, and any other value stands for the escape byte itself.
func (d *Decoder) decodePPM(limit int64) error {
	p := &d.ppm
	for d.Pos < limit {
		c, err := p.rar.Decode()
		if err != nil {
			return ppmErr(err)
		}
		if c != p.esc {
			d.Win[d.Pos&d.Mask] = c
			d.Pos++
			continue
		}
		c, err = p.rar.Decode()
		if err != nil {
			return ppmErr(err)
		}
		switch c {
		case 0:
			if err := d.readTables(); err != nil {
				return err
			}
			if !p.active {
				return nil
			}
		case 2:
			d.Done = true
			return nil
		case 3:
			if err := d.readVMCodePPM(); err != nil {
				return err
			}
		case 4:
			var b [4]byte
			for i := range b {
				if b[i], err = p.rar.Decode(); err != nil {
					return ppmErr(err)
				}
			}
			dist := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
			if err := d.copyOut(int(b[3])+32, dist+2); err != nil {
				return err
			}
		case 5:
			n, err := p.rar.Decode()
			if err != nil {
				return ppmErr(err)
			}
			if err := d.copyOut(int(n)+4, 1); err != nil {
				return err
			}
		default:
			d.Win[d.Pos&d.Mask] = p.esc
			d.Pos++
		}
	}
	return nil
}

// readVMCodePPM reads a filter definition coded as PPMd symbols (unrar
// ReadVMCodePPM).
func (d *Decoder) readVMCodePPM() error {
	p := &d.ppm
	first, err := p.rar.Decode()
	if err != nil {
		return ppmErr(err)
	}
	n := int(first&7) + 1
	switch n {
	case 7:
		b, err := p.rar.Decode()
		if err != nil {
			return ppmErr(err)
		}
		n = int(b) + 7
	case 8:
		b1, err := p.rar.Decode()
		if err != nil {
			return ppmErr(err)
		}
		b2, err := p.rar.Decode()
		if err != nil {
			return ppmErr(err)
		}
		n = int(b1)<<8 | int(b2)
	}
	if n == 0 {
		return errs.Corrupt("rar v29: empty filter code")
	}
	code := d.flt.codeBuf(n)
	for i := range code {
		if code[i], err = p.rar.Decode(); err != nil {
			return ppmErr(err)
		}
	}
	return d.addFilter(first, code)
}
