package sevenzip

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Random access (engine.EntrySeeker). A folder whose coders form one chain
// from its pack stream to its output can be entered in the middle:
//
//   - Copy and at most one 7zAES coder: output offset x is pack offset x.
//     AES-CBC decrypts block k with ciphertext block k-1 as its IV (the
//     folder's IV for block 0), so the reader starts at the block of x
//     and drops x%16 bytes.
//   - one LZMA2 or LZMA coder, with Copy or one 7zAES before it (on the
//     packed side) and only Copy after it: while such a folder is decoded
//     for a seekable reader, it takes a checkpoint at the first point of
//     every Interval bytes of output where the decoder can take one: an
//     LZMA2 chunk boundary (lzma.Reader2.Checkpoint, kind "lzma2": the
//     window and the probabilities), or, for LZMA, whose range coder
//     runs through the whole stream, any point where the decoder has
//     handed out all it decoded (lzma.Reader.Checkpoint, kind "lzma":
//     the window, the probabilities and the range coder). Either costs
//     the window: min(dictionary, folder size), plus about 30 KiB. A
//     later OpenAt resumes from the nearest one at or before its target,
//     the AES stage restarted at the checkpoint's input offset as above.
//   - one BZip2 coder in the same place: it takes a checkpoint between
//     blocks (bzip2.Reader.Checkpoint, kind "bzip2": the bit offset of
//     the next block's magic, the block size level and the combined
//     stream CRC, 6 bytes; a seekable reader decodes its blocks
//     serially), resumed at the byte holding the magic, AES restarted
//     at its block as above; every later block's CRC is still checked.
//   - one PPMd coder in the same place: it takes a checkpoint wherever
//     the decoder has handed out all it decoded (ppmd.Reader7z.Checkpoint,
//     kind "ppmd7": the range decoder and the whole model, i.e. up to
//     the model's memory size, 16 MiB at 7-Zip's -mx5, once its arena
//     has filled), resumed at its input byte; a restored model is
//     checked as a heap before it is used.
//
//   - one Deflate or Deflate64 coder in the same place: it takes a
//     checkpoint between blocks (deflate.Reader.Checkpoint, kind
//     "deflate": the last 32 or 64 KiB of output and the input bit
//     offset; the decoder is paused at the first block boundary after
//     each interval), resumed at the byte holding that bit.
//   - any of those coders followed by one branch filter (BCJ x86, ARM,
//     ARMT, ARM64, PPC, SPARC, IA64, RISCV) or Delta, as 7-Zip puts on
//     executables: the checkpoint also holds the filter's state where
//     it has handed out all it converted (bcj.Reader.AppendState: its
//     position, x86's mask state, the up to 16 bytes it read and could
//     not convert yet, Delta's 256-byte history), before the coder's
//     and after its length (2 bytes); kind "lzma2+bcj", "lzma+arm64",
//     "bzip2+delta" and so on. Its Out is the folder's (the filter's)
//     output offset; the coder resumes that many held bytes later.
//   - such a filter over Copy (plain or AES): kind "copy+delta" and so
//     on, the filter's state alone; the Copy coder resumes at its
//     input offset (copyCounter).
//   - BCJ2 folders whose four inputs come from pack streams directly
//     or through one LZMA, LZMA2 or Copy coder each, with or without a
//     7zAES coder on the packed side of each (7-Zip's -mf=BCJ2, and with
//     -p: its range coder's stream straight from 7zAES): kind "bcj2",
//     see seek_bcj2.go. Under 7zAES each input resumes as the AES chains
//     above do, at the block of its decrypted offset; the state holds
//     no key and no IV.
//
// Every other folder restarts from a parked decoder or from the
// folder's start.

// chainShape classifies folder f for random access.
type chainShape struct {
	ok     bool // one chain of 1-in 1-out coders over one pack stream
	direct bool // Copy and AES only
	lz     int  // the chain's LZMA2, LZMA, BZip2 or PPMd coder, -1 none (or not resumable)
	filt   int  // the branch or Delta filter after it, -1 none
	aes    int  // the 7zAES coder, -1 none
	aesOut int  // its output stream
	outLen int64

	// BCJ2 folders (seek_bcj2.go): lz is the BCJ2 coder; sub[j] is the
	// LZMA, LZMA2 or Copy coder feeding its input j (-1: none), subAES[j]
	// the 7zAES coder under it or feeding the input itself (-1: none),
	// pack[j] the pack stream (index into the folder's) under them; aes
	// is one of the 7zAES coders (the folder is encrypted).
	bcj2   bool
	sub    [4]int
	subAES [4]int
	pack   [4]int
}

func shapeOf(f *folder) chainShape {
	none := chainShape{lz: -1, aes: -1, filt: -1}
	sh := none
	if len(f.packed) != 1 {
		bcj2Shape(f, &sh)
		return sh
	}
	outBase := make([]int, len(f.coders))
	inBase := make([]int, len(f.coders))
	nIn, nOut := 0, 0
	for i := range f.coders {
		if f.coders[i].numIn != 1 || f.coders[i].numOut != 1 {
			return sh
		}
		inBase[i], outBase[i] = nIn, nOut
		nIn++
		nOut++
	}
	out := f.mainOut
	copyAt := -1 // a Copy coder under a filter: the chain's coder when it has no other
	for steps := 0; ; steps++ {
		if steps > len(f.coders) || out < 0 || out >= len(f.coders) {
			return none
		}
		ci := out // one output per coder: stream index = coder index
		m := methodOf(f.coders[ci].method)
		switch {
		case m == nil:
			return none
		case m.role == roleCopy:
			if sh.filt >= 0 && sh.lz < 0 && copyAt < 0 {
				copyAt = ci
			}
		case m.role == roleCrypt:
			if sh.aes >= 0 {
				return none
			}
			sh.aes, sh.aesOut = ci, out
		case m.role == roleCoder && m.resume != nil:
			if sh.lz >= 0 || sh.aes >= 0 {
				return none
			}
			sh.lz = ci
		case m.role == roleFilter:
			if sh.filt >= 0 || sh.lz >= 0 || sh.aes >= 0 {
				return none
			}
			sh.filt = ci
		default:
			return none
		}
		in := inBase[ci]
		if f.packed[0] == in {
			break
		}
		next := -1
		for _, bp := range f.bindPairs {
			if bp.in == in {
				next = bp.out
			}
		}
		if next < 0 {
			return none
		}
		out = next
	}
	if sh.filt >= 0 && sh.lz < 0 {
		sh.lz = copyAt
	}
	if sh.filt >= 0 && (sh.lz < 0 || f.unpackSizes[sh.filt] != f.unpackSizes[sh.lz]) {
		return none // filters keep the size
	}
	sh.ok = true
	sh.direct = sh.lz < 0
	sh.outLen = f.size()
	return sh
}

// SetCheckpoints serves engine.Checkpointer.
func (c *capable) SetCheckpoints(p engine.CheckpointPolicy) {
	a := (*Archive)(c)
	a.cps.SetPolicy(p)
	a.cps.SetInput(a.cpInput) // restored ones must match the archive's bytes
}

// CheckpointStats serves engine.CheckpointReporter.
func (c *capable) CheckpointStats() engine.CheckpointStats { return c.cps.Stats() }

// OpenAt serves engine.EntrySeeker: a reader of entry i from a point
// at or before off (see the comment at the top of this file: Copy/AES
// directly; LZMA2, LZMA, BZip2, PPMd, Deflate and Deflate64 chains, with
// one BCJ-family or Delta filter after the coder or none, such a filter
// over Copy, and BCJ2 folders, from checkpoints). From 0 it
// verifies the CRC as Open's reader does; from elsewhere it cannot.
func (c *capable) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	a := (*Archive)(c)
	if i < 0 || i >= len(a.entries) {
		return nil, 0, fmt.Errorf("7z: no entry %d", i)
	}
	if a.closed.Load() {
		return nil, 0, errClosed
	}
	e := a.entries[i]
	k := a.stream[i]
	if k < 0 || e.Size <= 0 {
		rc, err := a.Open(i)
		return rc, 0, err
	}
	off = min(max(off, 0), e.Size)
	fi := int(a.streamFolder[k])
	base := a.streamOff[k]
	sh := shapeOf(&a.si.folders[fi])
	var fr *folderReader
	var err error
	if sh.ok && sh.direct && off > 0 {
		fr, err = a.directFolder(fi, sh, base+off, e)
	} else {
		fr, err = a.seekFolder(fi, sh, base, base+off, e)
	}
	if err != nil {
		return nil, 0, err
	}
	start := fr.pos - base
	return a.entryFrom(i, fr, start), start, nil
}

// StartAt serves engine.EntrySeeker: where OpenAt(i, off) would start.
func (c *capable) StartAt(i int, off int64) int64 {
	a := (*Archive)(c)
	if i < 0 || i >= len(a.entries) || a.stream[i] < 0 || off <= 0 {
		return 0
	}
	e := a.entries[i]
	k := a.stream[i]
	off = min(off, e.Size)
	fi := int(a.streamFolder[k])
	base := a.streamOff[k]
	sh := shapeOf(&a.si.folders[fi])
	if sh.ok && sh.direct {
		return off
	}
	best := base
	if sh.ok && sh.lz >= 0 && a.cps.Interval() > 0 {
		if cp, ok := a.cps.Find(fi, base+off); ok {
			best = max(best, cp.Out)
		}
	}
	a.mu.Lock()
	for _, fr := range a.idle {
		if fr.index == fi && fr.pos <= base+off {
			best = max(best, fr.pos)
		}
	}
	a.mu.Unlock()
	return best - base
}

// entryFrom makes the reader of entry i over fr, which is at start.
func (a *Archive) entryFrom(i int, fr *folderReader, start int64) io.ReadCloser {
	e := a.entries[i]
	if start == 0 {
		er := &entryReader{a: a, remain: e.Size, fr: fr, encrypted: fr.encrypt}
		return a.entryRC(i, er)
	}
	er := &entryReader{a: a, remain: e.Size - start, fr: fr, encrypted: fr.encrypt}
	rc := &entryRC{er: er}
	rc.v.ResetHash(er, nil, nil, e.Size-start)
	return rc
}

// seekFolder returns a decoder of folder fi at a point in [base,
// target]: a parked decoder or a checkpoint at or before target, the
// nearer, or a new decoder; it decodes forward to base when it starts
// before it.
func (a *Archive) seekFolder(fi int, sh chainShape, base, target int64, e *arc.Entry) (*folderReader, error) {
	interval := a.cps.Interval()
	var cp engine.Checkpoint
	haveCP := false
	// checked is the reader that verified a restored checkpoint, when
	// there was one to verify: past it by the check span, or, when
	// target lies inside the span, at it with the span's bytes in hand.
	var checked *folderReader
	if sh.ok && sh.lz >= 0 && interval > 0 {
		var err error
		cp, haveCP, err = a.cps.FindChecked(fi, target, func(cp engine.Checkpoint) (bool, error) {
			ok, fr, err := a.checkCP(fi, sh, cp, e, target)
			if checked != nil {
				checked.Close()
			}
			checked = fr
			return ok, err
		})
		if err != nil {
			return nil, err
		}
		if checked != nil && (!haveCP || checked.pos > target) {
			checked.Close()
			checked = nil
		}
	}
	a.mu.Lock()
	best := -1
	for j, fr := range a.idle {
		if fr.index == fi && fr.pos <= target && (best < 0 || fr.pos > a.idle[best].pos) {
			best = j
		}
	}
	var fr *folderReader
	if best >= 0 && (!haveCP || a.idle[best].pos >= cp.Out) && (checked == nil || a.idle[best].pos >= checked.pos) {
		fr = a.idle[best]
		a.idle = append(a.idle[:best], a.idle[best+1:]...)
	}
	a.mu.Unlock()
	var err error
	switch {
	case fr != nil:
		if checked != nil {
			checked.Close()
		}
	case checked != nil:
		fr = checked
	case haveCP:
		fr, err = a.resumeFolder(fi, sh, cp, e)
	default:
		fr, err = a.newFolderReader(a.si, fi, e, 1)
	}
	if err != nil {
		return nil, err
	}
	if sh.ok && sh.lz >= 0 && interval > 0 && fr.cpz != nil && fr.cpEvery == 0 {
		fr.a, fr.cpEvery = a, interval
		fr.cpNext = (fr.pos/interval + 1) * interval
		fr.pauseAt(fr.cpNext)
	}
	if err := fr.skip(base - fr.pos); err != nil {
		return nil, err
	}
	return fr, nil
}

// skip decodes and drops n bytes (none when n <= 0); on failure it
// closes fr.
func (fr *folderReader) skip(n int64) error {
	if n <= 0 {
		return nil
	}
	bufp := getBuf()
	defer putBuf(bufp)
	buf := *bufp
	for n > 0 {
		m, err := io.ReadFull(fr, buf[:min(n, int64(len(buf)))])
		n -= int64(m)
		if err != nil {
			enc := fr.encrypt // fr is back in the pool after Close
			fr.Close()
			return mapErr(enc, errs.EOF(err, "7z folder"))
		}
	}
	return nil
}

// packStart returns the file offset and size of folder f's one pack stream.
func (a *Archive) packStart(f *folder) (int64, int64) {
	pi := f.firstPack
	return a.base + a.si.packPos + a.si.packOff[pi], a.si.packSizes[pi]
}

// chainInput opens folder fi's pack stream at offset in of the chain's
// packed-side output (what the first non-AES coder reads), through AES
// (aesAt) when the chain has it.
func (a *Archive) chainInput(fr *folderReader, sh chainShape, in int64) (io.Reader, error) {
	f := &a.si.folders[fr.index]
	off, size := a.packStart(f)
	if sh.aes < 0 {
		if in > size {
			return nil, errs.Corrupt("7z: seek past the pack stream")
		}
		return fr.newPack(a.ra, off+in, size-in), nil
	}
	return a.aesAt(fr, &f.coders[sh.aes], f.unpackSizes[sh.aesOut], off, size, in)
}

// aesAt opens the pack stream of size bytes at file offset off through
// 7zAES coder c (outLen bytes of output) at output offset in. AES-CBC
// decrypts block k with ciphertext block k-1 as its IV (the coder's IV
// for block 0), so the decryptor starts at the block of in with that
// IV, read from the archive, and in%16 bytes are dropped; the key is
// the archive's (aesKey).
func (a *Archive) aesAt(fr *folderReader, c *coder, outLen, off, size, in int64) (io.Reader, error) {
	blk := in &^ 15
	if in < 0 || blk > size || in > outLen {
		return nil, errs.Corrupt("7z: seek past the pack stream")
	}
	if err := checkAESProps(c.props); err != nil {
		return nil, err
	}
	p := &fr.env.aesProps
	var err error
	if *p, err = aes7z.ParseProps(c.props); err != nil {
		return nil, err
	}
	iv := p.IV
	if blk > 0 {
		if _, err := a.ra.ReadAt(iv[:], off+blk-16); err != nil {
			return nil, errs.EOF(err, "7z pack stream")
		}
	}
	key, err := fr.env.aesKey(p)
	if err != nil {
		return nil, err
	}
	pr := fr.newPack(a.ra, off+blk, size-blk)
	dec := aesReaders.Get()
	if err := dec.Reset(pr, key, iv); err != nil {
		aesReaders.Put(dec)
		return nil, err
	}
	fr.env.onClose(aesRelease{dec})
	lr := fr.newLimited(dec, outLen-blk)
	if drop := in - blk; drop > 0 {
		var b [16]byte
		if _, err := io.ReadFull(lr, b[:drop]); err != nil {
			return nil, mapErr(true, errs.EOF(err, "7z pack stream"))
		}
	}
	return lr, nil
}

// partialFolder is a folder reader without coders yet.
func (a *Archive) partialFolder(fi int, e *arc.Entry, sh chainShape) *folderReader {
	fr := getFolder(fi)
	fr.encrypt = sh.aes >= 0
	fr.env.limits = a.cfg.Bounds
	fr.maxRatio, fr.ratioFloor = a.cfg.Bounds.MaxRatio, a.cfg.Bounds.RatioFloor
	fr.env.a, fr.env.entry = a, e
	fr.env.stored = a.storedKeys != nil // keys an index brought, as newFolderReader
	return fr
}

// directFolder opens a Copy/AES folder at output offset x.
func (a *Archive) directFolder(fi int, sh chainShape, x int64, e *arc.Entry) (*folderReader, error) {
	fr := a.partialFolder(fi, e, sh)
	in, err := a.chainInput(fr, sh, x)
	if err != nil {
		enc := fr.encrypt // fr is back in the pool after Close
		fr.Close()
		return nil, mapErr(enc, err)
	}
	fr.r = fr.newLimited(in, sh.outLen-x)
	fr.pos = x
	return fr, nil
}

// resumeFolder restarts a folder from checkpoint cp: its coder through
// its row's resume (method.go), the filter after it from its state.
func (a *Archive) resumeFolder(fi int, sh chainShape, cp engine.Checkpoint, e *arc.Entry) (*folderReader, error) {
	if sh.bcj2 {
		return a.resumeBCJ2(fi, sh, cp, e)
	}
	f := &a.si.folders[fi]
	c := &f.coders[sh.lz]
	if cp.Kind != cpKindOf(f, sh) {
		return nil, errs.Corrupt("7z: checkpoint does not fit folder %d", fi)
	}
	size := f.unpackSizes[sh.lz]
	lzState, fstate, ok := splitState(sh, cp.State)
	if !ok {
		return nil, errs.Corrupt("7z: checkpoint state does not fit folder %d", fi)
	}
	lzOut := cp.Out // where the coder resumes: after what the filter holds
	var fs bcj.State
	dist := 0
	if sh.filt >= 0 {
		k, start, d, err := filterParams(&f.coders[sh.filt])
		if err != nil {
			return nil, err
		}
		if fs, err = bcj.ParseState(k, fstate); err != nil {
			return nil, err
		}
		if fs.IP() != start+uint32(cp.Out) {
			return nil, errs.Corrupt("7z: filter checkpoint at %d holds position %d", cp.Out, fs.IP())
		}
		lzOut += int64(fs.Held())
		dist = d
	}
	if cp.Out < 0 || lzOut > size {
		return nil, errs.Corrupt("7z: checkpoint outside folder %d", fi)
	}
	fr := a.partialFolder(fi, e, sh)
	in, err := a.chainInput(fr, sh, cpInByte(cp))
	if err != nil {
		enc := fr.encrypt // fr is back in the pool after Close
		fr.Close()
		return nil, mapErr(enc, err)
	}
	r, z, err := methodOf(c.method).resume(fr, c, in, size, lzState, lzOut, cp.In)
	if err != nil {
		fr.Close()
		return nil, err
	}
	fr.cpz = z
	if sh.filt >= 0 {
		bf := new(bcj.Reader)
		bf.ResetState(fr.newLimited(r, size-lzOut), &fs, dist)
		fr.env.onClose(bf)
		r, fr.cpf = bf, bf
	}
	fr.r = fr.newLimited(r, size-cp.Out)
	fr.pos = cp.Out
	return fr, nil
}

// cpKindOf is the checkpoint kind of folder f of shape sh: the coder's,
// and "+" and the filter's when one follows it.
func cpKindOf(f *folder, sh chainShape) string {
	k := methodOf(f.coders[sh.lz].method).cpKind
	if sh.filt >= 0 {
		k += "+" + strings.ToLower(methodOf(f.coders[sh.filt].method).filter.String())
	}
	return k
}

// splitState splits a checkpoint's state into the coder's and the
// filter's, which starts it after its length (2 bytes).
func splitState(sh chainShape, st []byte) (lz, filt []byte, ok bool) {
	if sh.filt < 0 {
		return st, nil, true
	}
	if len(st) < 2 {
		return nil, nil, false
	}
	n := int(binary.LittleEndian.Uint16(st))
	if n > bcj.MaxStateSize || n > len(st)-2 {
		return nil, nil, false
	}
	return st[2+n:], st[2 : 2+n], true
}

// cpInByte is the byte of the coder's input a checkpoint resumes at:
// BZip2 and Deflate count their input in bits (their blocks need not
// start on a byte).
func cpInByte(cp engine.Checkpoint) int64 {
	if m := cpMethod(cp.Kind); m != nil && m.cpInBits {
		return cp.In / 8
	}
	return cp.In
}

// pauseAt makes a Deflate decoder stop at its first block boundary at
// or after coder output out, where it can take a checkpoint.
func (fr *folderReader) pauseAt(out int64) {
	if p, ok := fr.cpz.(interface{ PauseAt(int64) }); ok {
		p.PauseAt(out)
	}
}

// cpDecoder is a decoder that takes checkpoints: lzma.Reader2 (at chunk
// boundaries), lzma.Reader (wherever it has delivered all it decoded)
// bzip2.Reader (between blocks, when it decodes serially),
// ppmd.Reader7z (between symbols) and deflate.Reader (between blocks,
// where PauseAt stops it).
type cpDecoder interface {
	CanCheckpoint() bool
	CheckpointSize() int
	Checkpoint(dst []byte) (state []byte, out, in int64)
	Total() int64
}

// checkpoint takes a checkpoint when fr's decoder can take one, in a
// cell of the interval grid that has none yet.
func (fr *folderReader) checkpoint() {
	z := fr.cpz
	if len(fr.pre) > 0 || !z.CanCheckpoint() {
		return // at the next chunk boundary or step (or past the bytes in hand)
	}
	a, iv := fr.a, fr.cpEvery
	held := int64(0)
	if fr.cpf != nil {
		if !fr.cpf.CanCheckpoint() {
			return // the filter has converted bytes to hand out
		}
		held = int64(fr.cpf.Held())
	}
	if z.Total() != fr.pos+held {
		fr.cpEvery, fr.cpNext = 0, 0 // output and decoder disagree: take none
		return
	}
	f := &a.si.folders[fr.index]
	sh := shapeOf(f)
	if held > 0 && z.Total() >= f.unpackSizes[sh.lz] {
		return // the coder has ended: only the filter's last bytes remain
	}
	cell := fr.pos / iv * iv
	fr.cpNext = cell + iv
	fr.pauseAt(fr.cpNext + held)
	if a.cps.Has(fr.index, cell, cell+iv) {
		return
	}
	n := z.CheckpointSize()
	if fr.cpf != nil {
		n += fr.cpf.StateSize() + 2
	}
	if !a.cps.Fits(n) {
		return
	}
	state := make([]byte, 0, n)
	if fr.cpf != nil {
		state = fr.cpf.AppendState(append(state, 0, 0))
		binary.LittleEndian.PutUint16(state, uint16(len(state)-2))
	}
	state, out, in := z.Checkpoint(state)
	out -= held
	cp := engine.Checkpoint{Kind: cpKindOf(f, sh), Stream: fr.index, Out: out, In: in, State: state}
	cp.Entry, cp.EntryOff = a.entryAtOut(fr.index, out)
	a.cps.Add(cp)
}

// entryAtOut returns the entry whose content holds output offset out of
// folder fi, and the offset in it (-1, 0: none).
func (a *Archive) entryAtOut(fi int, out int64) (int, int64) {
	for j, k := range a.stream {
		if k >= 0 && int(a.streamFolder[k]) == fi && a.streamOff[k] <= out && out < a.streamOff[k]+a.entries[j].Size {
			return j, out - a.streamOff[k]
		}
	}
	return -1, 0
}
