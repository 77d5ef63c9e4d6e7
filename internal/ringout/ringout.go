// Package ringout is the output side shared by the ZIP decoders that
// decode into a ring buffer of their own (implode, reduce): Read and
// WriteTo straight from the ring, the count of bytes still to come and
// the sticky error. The decoder embeds Out, points it at its ring in
// Reset and fills the ring in Fill; the hot loop writes the ring itself
// and advances W.
package ringout

import "io"

// Filler decodes more of the stream into the ring: it advances Out.W
// (never more than len(ring) past Out.R) and Out.Left, or returns why it
// cannot.
type Filler interface{ Fill() error }

// Out delivers a ring decoder's output.
type Out struct {
	W, R uint64 // bytes written to / delivered from the ring
	Left int64  // bytes still to decode
	Err  error  // sticky

	ring []byte // len a power of two; nil once closed
	dec  Filler
}

// Start points o at ring (its length a power of two), cleared, for a new
// stream of size bytes decoded by dec.
func (o *Out) Start(ring []byte, dec Filler, size int64) {
	clear(ring)
	o.ring, o.dec = ring, dec
	o.W, o.R, o.Left, o.Err = 0, 0, size, nil
}

// Stop ends the stream: reads fail with err from now on.
func (o *Out) Stop(err error) { o.ring, o.Err = nil, err }

// Copy appends n bytes copied from dist back to the ring, the LZ77 match
// of both decoders. The ring starts zeroed, so a distance before the
// start reads zeros, as PKZIP's decoders do.
func (o *Out) Copy(dist uint64, n int) {
	ring := o.ring
	mask := uint64(len(ring) - 1)
	w, src := o.W, o.W-dist
	for i := range uint64(n) {
		ring[(w+i)&mask] = ring[(src+i)&mask]
	}
	o.W += uint64(n)
	o.Left -= int64(n)
}

// pending is the undelivered part of the ring up to its end.
func (o *Out) pending() []byte {
	mask := uint64(len(o.ring) - 1)
	s := o.R & mask
	return o.ring[s:min(s+(o.W-o.R), uint64(len(o.ring)))]
}

// Read implements io.Reader.
func (o *Out) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if o.ring == nil {
			return n, o.Err
		}
		if o.R < o.W {
			c := copy(p[n:], o.pending())
			o.R += uint64(c)
			n += c
			continue
		}
		if o.Left == 0 {
			return n, io.EOF
		}
		if o.Err != nil {
			return n, o.Err
		}
		o.Err = o.dec.Fill()
		if o.Err != nil && n > 0 {
			return n, nil
		}
	}
	return n, nil
}

// WriteTo implements io.WriterTo, writing straight from the ring.
func (o *Out) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if o.ring == nil {
			return total, o.Err
		}
		if o.R < o.W {
			n, err := w.Write(o.pending())
			o.R += uint64(n)
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if o.Left == 0 {
			return total, nil
		}
		if o.Err != nil {
			return total, o.Err
		}
		o.Err = o.dec.Fill()
	}
}
