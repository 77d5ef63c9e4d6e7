// Package ringout is the plumbing shared by the ZIP decoders that
// decode into a ring buffer of their own (implode, reduce). Out is the
// output side: Read and WriteTo straight from the ring, the count of
// bytes still to come and the sticky error; a Filler fills the ring. The
// hot loop writes the ring itself and advances W.
//
// Decoder adds the rest those decoders share: the input bit reader, the
// header read once before the data, and resuming from a checkpoint. A
// decoder embeds a Decoder, points it at its ring and its Coder in Reset
// (Init), and decodes in Coder.Decode.
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

	ring  []byte // len a power of two; nil once closed
	dec   Filler
	pause uint64 // Limit stops a Fill here (checkpoints); 0: nowhere
}

// Start points o at ring (its length a power of two), cleared, for a new
// stream of size bytes decoded by dec.
func (o *Out) Start(ring []byte, dec Filler, size int64) {
	clear(ring)
	o.ring, o.dec = ring, dec
	o.W, o.R, o.Left, o.Err, o.pause = 0, 0, size, nil, 0
}

// Limit is how far W may go in one Fill: the ring keeps room for a
// longest match of maxMatch, and Fill stops at the PauseAt point ahead.
func (o *Out) Limit(maxMatch int) uint64 {
	lim := o.R + uint64(len(o.ring)-maxMatch)
	if o.pause > o.W && o.pause < lim {
		lim = o.pause
	}
	return lim
}

// Checkpoints. Between two symbols, with every decoded byte delivered,
// a ring decoder's output side is the last window bytes it wrote; the
// decoder adds its own few fields and the input's bit offset.

// PauseAt makes Fill stop once W reaches out, so that a checkpoint can
// be taken there (a match may carry it a little past).
func (o *Out) PauseAt(out int64) { o.pause = uint64(max(out, 0)) }

// Drained reports whether every byte decoded has been delivered, nothing
// failed and the stream has more to come: where a checkpoint may be taken.
func (o *Out) Drained() bool { return o.ring != nil && o.Err == nil && o.R == o.W && o.Left > 0 }

// HistoryLen is how many bytes AppendHistory appends.
func (o *Out) HistoryLen(window int) int { return int(min(o.W, uint64(window))) }

// AppendHistory appends the last HistoryLen(window) bytes written.
func (o *Out) AppendHistory(dst []byte, window int) []byte {
	mask := uint64(len(o.ring) - 1)
	for p := o.W - uint64(o.HistoryLen(window)); p < o.W; p++ {
		dst = append(dst, o.ring[p&mask])
	}
	return dst
}

// RestoreHistory continues a stream Start began at output offset out,
// with hist (AppendHistory's bytes) the bytes just before it; bytes
// before hist read as zeros, as before a stream's start. It reports
// false when out is past the stream's size or hist does not fit.
func (o *Out) RestoreHistory(hist []byte, out int64, window int) bool {
	if out < 0 || out > o.Left || len(hist) != int(min(out, int64(window))) || len(hist) > len(o.ring) {
		return false
	}
	mask := uint64(len(o.ring) - 1)
	w := uint64(out)
	for i, c := range hist {
		o.ring[(w-uint64(len(hist))+uint64(i))&mask] = c
	}
	o.W, o.R, o.Left = w, w, o.Left-out
	return true
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
		if n > 0 && o.pause > 0 && o.W >= o.pause {
			return n, nil // paused: the caller may take a checkpoint now
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
