package unpack50

import (
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarfilter"
)

// growBuf returns a pooled buffer of at least n bytes, reusing p if it fits.
func growBuf(p *[]byte, n int) *[]byte {
	if p != nil && cap(*p) >= n {
		*p = (*p)[:cap(*p)]
		return p
	}
	pool.Put(p)
	p = pool.Get(n)
	*p = (*p)[:cap(*p)]
	return p
}

// readFilterData reads a filter record number: 2 bits of byte count
// minus one, then that many bytes, least significant first.
func (b *bitReader) readFilterData() uint32 {
	count := b.get(2) + 1
	var v uint32
	for i := uint32(0); i < count; i++ {
		v |= b.get(8) << (8 * i)
	}
	return v
}

// readFilter reads a filter record (main symbol 256) and queues it.
// Layout: block start (relative to the current position), block length,
// 3-bit type, and for DELTA a 5-bit channel count minus one.
func (d *Decoder) readFilter() error {
	br := &d.br
	start := br.readFilterData()
	length := br.readFilterData()
	if length > maxFilterSize {
		length = 0 // unrar ignores such a filter
	}
	typ := byte(br.get(3))
	ch := 0
	if typ == filterDelta {
		ch = int(br.get(5)) + 1
	}
	if typ > filterARM {
		return d.br.corrupt("rar5: unknown filter type %d", typ)
	}
	f := filter{start: d.total + int64(start), length: int(length), typ: typ, channels: ch}
	if d.queueFilter(f) {
		return d.br.corrupt("rar5: more than %d pending filters", maxFilters)
	}
	return nil
}

// queueFilter adds f to the pending filters; true when the queue is
// already full (an error).
func (d *Decoder) queueFilter(f filter) bool {
	if n := len(d.filters); n > d.fhead {
		// unrar skips a filter that starts inside the previous one.
		if p := &d.filters[n-1]; f.start < p.start+int64(p.length) {
			return false
		}
	}
	if len(d.filters)-d.fhead >= maxFilters {
		return true
	}
	if d.fhead > 0 && len(d.filters) == cap(d.filters) {
		// Reuse the consumed front of the queue.
		n := copy(d.filters, d.filters[d.fhead:])
		d.filters, d.fhead = d.filters[:n], 0
	}
	d.filters = append(d.filters, f)
	return false
}

// applyFilter runs f over the gathered block and returns the bytes to emit.
// Filters work on a copy: the window keeps the unfiltered bytes that later
// matches refer to.
func (d *Decoder) applyFilter(f *filter) []byte {
	data := (*d.fbufp)[:f.length]
	off := uint32(f.start - d.entryStart) // unrar: WrittenFileSize, per entry
	d.filtersRun[f.typ]++
	filtersApplied.Add(1)
	switch f.typ {
	case filterE8, filterE8E9:
		rarfilter.E8E9(data, off, f.typ == filterE8E9, rarfilter.V5Offsets)
	case filterARM:
		arm(data, off)
	case filterDelta:
		d.fdstp = growBuf(d.fdstp, f.length)
		dst := (*d.fdstp)[:f.length]
		rarfilter.Delta(dst, data, f.channels)
		return dst
	}
	return data
}

// arm undoes the ARM BL transform on 4-byte aligned instructions.
func arm(data []byte, off uint32) {
	for i := 0; i+3 < len(data); i += 4 {
		if data[i+3] != 0xeb {
			continue
		}
		v := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16
		v -= (off + uint32(i)) / 4
		data[i] = byte(v)
		data[i+1] = byte(v >> 8)
		data[i+2] = byte(v >> 16)
	}
}
