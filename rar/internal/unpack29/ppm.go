package unpack29

import "github.com/go-unarc/unarc/internal/errs"

// ppmState is the PPMd side of the stream: whether the current block is
// PPMd and the escape byte that introduces control codes in it.
type ppmState struct {
	active bool
	esc    byte
}

func (p *ppmState) reset() {
	p.active = false
	p.esc = 2
}

func (p *ppmState) release() {}

// startPPM reads a PPMd block header.
func (d *Decoder) startPPM() error {
	return errs.Unsupported("rar v29: PPMd blocks")
}

func (d *Decoder) decodePPM(limit int64) error {
	return errs.Unsupported("rar v29: PPMd blocks")
}
