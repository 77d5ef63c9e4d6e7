package ringout

import (
	"io"

	"github.com/go-unarc/unarc/internal/lsb"
)

// Coder is the codec part of a ring decoder: Header reads what precedes
// the data (implode's trees, reduce's follower sets), Decode fills the
// ring as Filler.Fill does.
type Coder interface {
	Header() error
	Decode() error
}

// Decoder is the plumbing a ring decoder embeds around its Coder: Out,
// the input's bits (Br, which the Coder reads) and whether the stream's
// header has been read. It reads the header once, before the first
// Decode.
type Decoder struct {
	Out
	Br     lsb.Reader
	coder  Coder
	name   string // the input's, in errors
	header bool
}

// Init makes d decode a new stream of size bytes from r (name is the
// input's name in errors) with c into ring (see Start).
func (d *Decoder) Init(ring []byte, c Coder, r io.Reader, name string, size int64) {
	d.Br.Reset(r, name)
	d.Start(ring, d, size)
	d.coder, d.name, d.header = c, name, false
}

// End makes reads fail with err (see Stop) and returns the input buffer
// to its pool.
func (d *Decoder) End(err error) {
	d.Br.Release()
	d.Stop(err)
}

// Fill is for Out: the header once, then Decode.
func (d *Decoder) Fill() error {
	if err := d.ReadHeader(); err != nil {
		return err
	}
	return d.coder.Decode()
}

// ReadHeader reads the stream's header unless it has been read.
func (d *Decoder) ReadHeader() error {
	if d.header {
		return nil
	}
	if err := d.coder.Header(); err != nil {
		return err
	}
	d.header = true
	return nil
}

// CanCheckpoint reports whether a checkpoint may be taken now: the header
// read and the output drained.
func (d *Decoder) CanCheckpoint() bool { return d.header && d.Drained() }

// Total is the output decoded so far.
func (d *Decoder) Total() int64 { return int64(d.W) }

// ResumeAt continues, from a checkpoint, the stream that Init began: it
// reads the header from the stream's start, moves the input to bit in of
// r and restores hist, the history of window bytes before output offset
// out (see RestoreHistory). fits says whether the checkpoint's own fields
// fit the stream; bad is returned when they do not, when in lies inside
// the header or when hist does not fit.
func (d *Decoder) ResumeAt(r io.Reader, in int64, hist []byte, out int64, window int, fits bool, bad error) error {
	if err := d.ReadHeader(); err != nil {
		return err
	}
	if !fits || in < d.Br.Consumed() {
		return bad
	}
	if err := d.Br.ResetAt(r, d.name, in); err != nil {
		return err
	}
	if !d.RestoreHistory(hist, out, window) {
		return bad
	}
	return nil
}
