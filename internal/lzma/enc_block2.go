package lzma

// LZMA2 chunking, and the block encoder that the multi-threaded LZMA2
// writer (part B) builds on.
//
// # block2Encoder contract
//
//	var b block2Encoder
//	err := b.reset(opts...)            // validates like NewWriter2; keeps buffers
//	dst, err = b.encodeBlock(dst, src) // appends one independent block
//	b.dictByte()                       // the LZMA2 property byte of the dictionary
//	b.close()                          // returns pooled memory (reset reopens)
//
//   - encodeBlock appends to dst the LZMA2 chunks that encode all of src as
//     an independent block and returns the extended slice. The block's first
//     chunk resets the dictionary (control 0x01 if stored, else 0xE0 with
//     the properties byte); its first LZMA chunk always carries the
//     properties and a state reset, so blocks can be concatenated in any
//     number and order of encoders and the stream is the concatenation
//     (after the last block the caller appends the 0x00 end byte;
//     encodeBlock never writes it). An empty src appends nothing.
//   - Chunks hold at most 2 MiB unpacked and 64 KiB packed; a chunk whose
//     LZMA form is not smaller than its data (+2) is stored as uncompressed
//     chunks of at most 64 KiB and the coder state is rolled back, as
//     7-Zip's Lzma2Enc does. Later chunks continue the state (control 0x80)
//     unless a stored chunk started the block (then 0xC0).
//   - The output depends only on src and the options: never on dst, on the
//     goroutine, or on what the encoder encoded before (deterministic).
//   - src is read, never written or retained after the call (the match
//     finder works in src directly: no copy of the block). The dictionary
//     used is min(the options' dictionary, max(len(src), 4 KiB)), and the
//     tables are sized for it; dictByte reports the options'
//     dictionary (what the 7z/xz header must declare; the decoder needs at
//     most that).
//   - Memory: the match finder's hash/tree arrays for the dictionary (see
//     Level), pooled; kept across encodeBlock and reset, returned by close.
//     No allocation per block once warm.
//   - A block2Encoder is not safe for concurrent use; use one per goroutine.
//   - Threads and BlockSize options are accepted and ignored by it.

// LZMA2 chunk limits (Lzma2Enc.c).
const (
	lzma2UnpackMax = 1 << 21
	lzma2PackMax   = 1 << 16
	lzma2CopyMax   = 1 << 16
	kPackReserve   = kNumOpts * 8
)

// chunker cuts the output of an encoder into LZMA2 chunks.
type chunker struct {
	e          *encoder
	snap       *model // the model at the start of the chunk
	snapState  uint32
	snapReps   [4]uint32
	started    bool  // a chunk is open
	start      int64 // e.pos at the start of the open chunk
	blockStart bool  // no chunk of the block written yet (dictionary reset due)
	needProps  bool
	needState  bool
	propsByte  byte
}

func (c *chunker) reset(e *encoder) {
	c.e = e
	if c.snap == nil {
		c.snap = models.Get()
	}
	c.started = false
	c.blockStart, c.needProps, c.needState = true, true, true
	p := e.cfg.props()
	c.propsByte = byte((p.PB*5+p.LP)*9 + p.LC)
}

func (c *chunker) release() {
	models.Put(c.snap)
	c.snap = nil
}

// open starts a chunk: a fresh range coder and a snapshot of the model.
func (c *chunker) open() {
	e := c.e
	if c.needState {
		e.resetState()
	}
	e.rc.reset()
	e.initPrices()
	copyModel(c.snap, e.m)
	c.snapState, c.snapReps = e.state, e.reps
	c.start = e.pos
	c.started = true
}

func copyModel(dst, src *model) {
	lit, gens, gen := dst.lit, dst.litGen, dst.gen
	*dst = *src
	if cap(lit) < len(src.lit) {
		lit = make([]uint16, len(src.lit))
	}
	dst.lit = lit[:len(src.lit)]
	copy(dst.lit, src.lit)
	// The stamps of a decoder's lazy reset stay dst's own: shared with
	// src, one model's decoder would mark the other's coders filled.
	dst.litGen, dst.gen = gens, gen
}

// full reports whether the open chunk must end before the next optimum run.
func (c *chunker) full() bool {
	return c.e.pos-c.start+kNumOpts+300 >= lzma2UnpackMax ||
		c.e.rc.pending()+kPackReserve >= lzma2PackMax
}

// close ends the open chunk and appends it to dst; data holds the
// chunk's bytes, the last unpacked bytes before the encoder's position.
func (c *chunker) close(dst []byte, data []byte) []byte {
	e := c.e
	c.started = false
	unpacked := int(e.pos - c.start)
	if unpacked == 0 {
		return dst
	}
	e.rc.flush()
	packed := len(e.rc.out)
	raw := data[len(data)-unpacked:]
	if packed+2 >= unpacked || packed > lzma2PackMax {
		for len(raw) > 0 {
			u := min(len(raw), lzma2CopyMax)
			ctrl := byte(ctrlCopy)
			if c.blockStart {
				ctrl = ctrlCopyDict
				c.blockStart = false
			}
			dst = append(dst, ctrl, byte((u-1)>>8), byte(u-1))
			dst = append(dst, raw[:u]...)
			raw = raw[u:]
		}
		copyModel(e.m, c.snap)
		e.state, e.reps = c.snapState, c.snapReps
		return dst
	}
	mode := byte(0)
	switch {
	case c.blockStart:
		mode = 3
	case c.needState && c.needProps:
		mode = 2
	case c.needState:
		mode = 1
	}
	u, p := unpacked-1, packed-1
	dst = append(dst, ctrlLZMA|mode<<5|byte(u>>16&0x1F), byte(u>>8), byte(u), byte(p>>8), byte(p))
	if c.needProps {
		dst = append(dst, c.propsByte)
	}
	dst = append(dst, e.rc.out...)
	c.blockStart, c.needProps, c.needState = false, false, false
	return dst
}

// block2Encoder encodes independent LZMA2 blocks; see the contract above.
type block2Encoder struct {
	e     encoder
	c     chunker
	cfg   encConfig // as given; e.cfg is sized per block
	ready bool
}

func (b *block2Encoder) reset(opts ...WriterOption) error {
	if err := b.cfg.resolve(opts, true); err != nil {
		return err
	}
	b.ready = true
	return nil
}

func (b *block2Encoder) dictByte() byte { return dictByteFor(b.cfg.dictSize) }

// encodeBlock appends the chunks of src to dst.
func (b *block2Encoder) encodeBlock(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return dst, nil
	}
	e := &b.e
	e.cfg = b.cfg
	if int64(e.cfg.dictSize) > int64(len(src)) {
		e.cfg.dictSize = uint32(max(len(src), MinDictSize))
	}
	e.open(0)
	e.mf.borrow(src)
	b.c.reset(e)
	for more := true; more; {
		dst, more = e.runLZMA2(&b.c, dst, true)
	}
	e.mf.buf = nil
	return dst, nil
}

func (b *block2Encoder) close() {
	b.e.close()
	b.c.release()
}

// dictByteFor returns the smallest LZMA2 dictionary byte whose size is at
// least d.
func dictByteFor(d uint32) byte {
	for b := byte(0); b < 40; b++ {
		if n, _ := DictSizeLZMA2(b); n >= int64(d) {
			return b
		}
	}
	return 40
}

// runLZMA2 encodes from the window into at most one chunk appended to
// dst, and reports whether it closed a chunk with more to come. Without
// final it stops when the look-ahead runs short, leaving the chunk open;
// with final it closes the last chunk.
func (e *encoder) runLZMA2(c *chunker, dst []byte, final bool) ([]byte, bool) {
	e.mf.final = final
	if !c.started {
		if e.ahead == 0 && e.mf.avail() == 0 {
			return dst, false
		}
		c.open()
	}
	st := e.run(c)
	if st == runNeedInput {
		return dst, false
	}
	dst = c.close(dst, e.mf.buf[:e.mf.cur-e.ahead])
	return dst, st == runFull
}
