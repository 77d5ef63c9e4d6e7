package sevenzip

import (
	"fmt"
	"io"
)

// The folder chain of the writer: filter -> compressor -> 7zAES -> sink.
// Entries' folders (writer.go) and the encoded header (write_header.go)
// are both written through a folderChain, which also records what the
// header says of the folder (folderRec): the coders in the order the
// header lists them and the size each produces.

// folderChain is a folder being written.
type folderChain struct {
	open    bool
	start   int64     // sink position of its first pack byte
	head    io.Writer // where the folder's bytes go in: the filter, else the compressor
	comp    compressor
	filt    bool    // head is the writer state's bcj.Writer
	aes     bool    // the compressor writes into the writer state's 7zAES encryptor
	compOut counter // bytes out of the compressor
	rec     folderRec
}

// folderRec is one written folder as the header records it. Coder 0
// produces the folder's data; coder i's input is coder i+1's output
// (the filter, the compressor, then 7zAES, whose props are the
// writer's key parameters and iv).
type folderRec struct {
	coders [3]wcoder
	sizes  [3]int64 // the output size of each coder
	nc     int
	iv     [16]byte // the 7zAES coder's, when one is among the coders
	pack   int64
	numSub int
}

func (f *folderRec) add(c wcoder) {
	f.coders[f.nc] = c
	f.nc++
}

// openChain starts folder chain c at the sink's position: filter f
// (FilterNone: none), the compressor of the writer's method (header: as
// 7-Zip packs a header of size bytes) and, with aes, 7zAES under a
// fresh IV.
func (w *Writer) openChain(c *folderChain, f Filter, aes, header bool, size int) error {
	*c = folderChain{open: true, start: w.out.pos, aes: aes}
	var dst io.Writer = w.out
	if aes {
		if _, err := io.ReadFull(w.rand, c.rec.iv[:]); err != nil {
			return fmt.Errorf("7z writer: random source: %w", err)
		}
		w.st.aes.Reset(w.out, c.rec.iv)
		dst = w.st.aes
	}
	c.compOut.w = dst
	comp, spec, err := w.st.coders.get(&w.cfg, &c.compOut, header, size)
	if err != nil {
		return err
	}
	c.comp, c.head = comp, comp
	if kind, m := filterSpec(f, w.cfg.deltaDist); kind != 0 {
		w.st.bw.Reset(comp, kind, 0, w.cfg.deltaDist)
		c.head, c.filt = &w.st.bw, true
		fc := wcoder{method: m}
		if m == mDelta {
			fc.props[0], fc.nprops = byte(w.cfg.deltaDist-1), 1
		}
		c.rec.add(fc)
	}
	c.rec.add(spec)
	if aes {
		c.rec.add(wcoder{method: mAES})
	}
	return nil
}

// closeChain flushes chain c, which took unpack bytes for numSub
// streams, and returns its record.
func (w *Writer) closeChain(c *folderChain, unpack int64, numSub int) (folderRec, error) {
	c.open = false
	var err error
	if c.filt {
		err = w.st.bw.Close()
	}
	if cerr := c.comp.Close(); err == nil {
		err = cerr
	}
	c.comp = nil
	w.st.coders.closed()
	if c.aes && err == nil {
		err = w.st.aes.Close()
	}
	if err != nil {
		return folderRec{}, err
	}
	r := c.rec
	for i := 0; i < r.nc; i++ {
		r.sizes[i] = unpack // a filter and the compressor produce the data
	}
	if c.aes {
		r.sizes[r.nc-1] = c.compOut.n // 7zAES produces the compressor's input
	}
	r.pack, r.numSub = w.out.pos-c.start, numSub
	return r, nil
}
