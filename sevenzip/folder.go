package sevenzip

import (
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// folderReader decodes one folder's unpacked stream from its start. It
// owns every stage's scratch and releases it on Close.
//
// Folder readers are pooled (folderReaders): one is about 2 KiB with its
// inline stages, and an extraction of an encrypted-header archive starts
// two (header and data), which was a sixth of what opening and
// extracting it allocated. A folder reader is never shared: it belongs
// to its entry reader, the idle list or the header decoder, and whoever
// holds it last calls Close exactly once, which puts it back; nothing
// keeps a pointer to it (or to its inline packReaders and
// limitedReaders) after that.
type folderReader struct {
	index   int
	r       io.Reader // the folder's main output, cut to its size
	pos     int64     // bytes of the main output consumed so far
	env     decodeEnv
	packs   []*packReader
	encrypt bool

	maxRatio   float64 // Limits.MaxRatio, applied per inner coder output
	ratioFloor int64   // max(Limits.RatioFloor, the folder's declared size)

	// Checkpoints (seek.go): cpz is the folder's LZMA2 or LZMA decoder
	// when its chain can resume from one; cpEvery > 0 takes them, the
	// next at the first point the decoder can at or after cpNext.
	a       *Archive
	cpz     cpDecoder
	cpf     *bcj.Reader // the filter after cpz, if any (seek.go)
	cpEvery int64
	cpNext  int64
	pre     []byte // output decoded already (a restored checkpoint's check span), handed out first

	live bool // between getFolder and Close

	// Inline stages for the usual chains (up to four coders and four
	// pack streams: BCJ2 with three LZMA coders); a folder needing more
	// allocates the rest.
	lrBuf [4]limitedReader
	nlr   int
	prBuf [4]packReader
	npr   int
	crc   crc32x.Reader // the encoded header's check (decodeHeaderFolder)

	// The folder's own CRC (its UnpackDigest), checked when a folder of
	// several files has one: sumOn while every byte of the main output
	// from the folder's start has passed through Read (a reader started
	// by newFolderReader; a resumed one never checks), compared when
	// pos reaches end. A folder of one file passes its CRC on to the
	// file, which the entry reader checks.
	sumOn   bool
	sum     uint32
	sumWant uint32
	end     int64
}

// folderReaders keep folder readers between folders (internal/pool's
// free list survives garbage collection).
var folderReaders pool.Of[folderReader]

// getFolder returns a zeroed folder reader of folder fi from the pool,
// keeping only its slices' capacity.
func getFolder(fi int) *folderReader {
	fr := folderReaders.Get()
	packs, closers := fr.packs[:0], fr.env.closers[:0]
	*fr = folderReader{index: fi, live: true, packs: packs}
	fr.env.closers = closers
	return fr
}

// newLimited returns a limitedReader of fr's over r cut to n bytes.
func (fr *folderReader) newLimited(r io.Reader, n int64) *limitedReader {
	if fr.nlr < len(fr.lrBuf) {
		lr := &fr.lrBuf[fr.nlr]
		fr.nlr++
		*lr = limitedReader{r: r, n: n}
		return lr
	}
	return &limitedReader{r: r, n: n}
}

// newPack returns a packReader of size bytes at off, owned by fr (closed
// by fr.Close).
func (fr *folderReader) newPack(ra io.ReaderAt, off, size int64) *packReader {
	var p *packReader
	if fr.npr < len(fr.prBuf) {
		p = &fr.prBuf[fr.npr]
		fr.npr++
	} else {
		p = new(packReader)
	}
	p.reset(ra, off, size)
	fr.packs = append(fr.packs, p)
	return p
}

// consumed returns the packed bytes the folder's coders have read.
func (fr *folderReader) consumed() int64 {
	var c int64
	for _, p := range fr.packs {
		c += p.off - p.start
	}
	return c
}

// limitedReader is io.LimitedReader that reports a stream ending before
// its declared size as an error rather than a quiet EOF: ErrCorrupt,
// since the coder's input lies wholly inside the archive (checkPack) and
// a coder that runs out of input reports ErrTruncated itself.
//
// It also holds each inner coder's output (one that feeds another coder)
// to Limits.MaxRatio against the folder's packed input consumed so far,
// once past RatioFloor and past the folder's declared (final) size: the
// root measures only a folder's final output, so a chain whose inner
// coders expand (PPMd into PPMd into PPMd) would otherwise burn CPU on
// output nobody counts. An honest chain's inner outputs are about its
// final output (BCJ/BCJ2 streams) or smaller (7zAES feeding LZMA), which
// its header declares and the root's account bounds; only expansion
// beyond that is undeclared. With the ratio lifted (+Inf) nothing is
// checked.
type limitedReader struct {
	r io.Reader
	n int64

	fr       *folderReader // nil: no ratio check
	produced int64
	method   string
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if err == io.EOF && l.n > 0 {
		err = errs.Corrupt("7z: coder output ends %d bytes before its declared size", l.n)
	}
	if fr := l.fr; fr != nil {
		l.produced += int64(n)
		if l.produced > fr.ratioFloor {
			if c := fr.consumed(); float64(l.produced) > fr.maxRatio*float64(c) {
				return n, errs.Limit("7z: coder %s produced %d bytes from %d packed bytes, above MaxRatio (%g)", l.method, l.produced, c, fr.maxRatio)
			}
		}
	}
	return n, err
}

// newFolderReader builds the decoding graph of folder fi (7zFormat.txt:
// coders, bind pairs, packed streams) over the archive's pack streams.
// workers is how many goroutines its coders may use (1: one Reader2,
// which seekable readers need for checkpoints).
// The password is asked for entry e (nil: the headers) when a coder
// needs a key.
func (a *Archive) newFolderReader(si *streamsInfo, fi int, e *arc.Entry, workers int) (*folderReader, error) {
	f := &si.folders[fi]
	fr := getFolder(fi)
	a.mu.Lock()
	a.folderStarts++
	a.mu.Unlock()
	fr.env.limits = a.cfg.Bounds
	fr.env.workers = workers
	fr.maxRatio, fr.ratioFloor = a.cfg.Bounds.MaxRatio, max(a.cfg.Bounds.RatioFloor, f.unpackSizes[f.mainOut])
	fr.env.a, fr.env.entry = a, e
	fr.env.stored = a.storedKeys != nil
	// Map stream indices to coders.
	inBase, outBase := streamBases(f)
	fr.encrypt = f.encrypted()
	plans, _, err := a.planFolder(si, f, inBase, outBase)
	if err != nil {
		fr.Close()
		return nil, err
	}
	visiting := make([]bool, len(f.coders))
	var build func(out int, depth int) (io.Reader, error)
	build = func(out int, depth int) (io.Reader, error) {
		ci := -1
		for i := range f.coders {
			if out >= outBase[i] && out < outBase[i]+f.coders[i].numOut {
				ci = i
				break
			}
		}
		if ci < 0 || depth > len(f.coders) {
			return nil, errs.Corrupt("7z: bad coder graph")
		}
		if visiting[ci] {
			return nil, errs.Corrupt("7z: cycle in the coder graph")
		}
		visiting[ci] = true
		defer func() { visiting[ci] = false }()
		c := &f.coders[ci]
		ins := make([]io.Reader, c.numIn)
		// BCJ2's inputs: each one's decoder, for its checkpoints
		// (seek_bcj2.go); a nil one (a coder that takes none) takes none.
		var subs [4]cpDecoder
		b2 := c.method == mBCJ2 && c.numIn == len(subs)
		for j := range ins {
			in := inBase[ci] + j
			var src io.Reader
			if b2 {
				fr.env.cpz, fr.env.step = nil, bcj.BCJ2BufSize(j)
			}
			for _, bp := range f.bindPairs {
				if bp.in == in {
					r, err := build(bp.out, depth+1)
					if err != nil {
						return nil, err
					}
					src = r
					if b2 && fr.env.cpz == nil {
						// A coder without checkpoints of its own (of
						// those shapeOf admits, 7zAES alone) resumes at
						// its output offset.
						cc := fr.env.counter(src, 0)
						src, fr.env.cpz = cc, cc
					}
					break
				}
			}
			if src == nil {
				for k, p := range f.packed {
					if p == in {
						pi := f.firstPack + k
						off := a.base + si.packPos + si.packOff[pi]
						src = fr.newPack(a.ra, off, si.packSizes[pi])
						if b2 {
							cc := fr.env.counter(src, 0)
							src, fr.env.cpz = cc, cc
						}
						break
					}
				}
			}
			if src == nil {
				return nil, errs.Corrupt("7z: coder input %d not connected", in)
			}
			ins[j] = src
			if b2 {
				subs[j], fr.env.step = fr.env.cpz, 0
			}
		}
		size := f.unpackSizes[out]
		r, err := newCoder(c, ins, size, plans[ci], &fr.env)
		if err != nil {
			return nil, err
		}
		if b2 {
			fr.env.cpz, fr.env.cpf = nil, nil
			if d, ok := r.(*bcj.BCJ2); ok && !slices.Contains(subs[:], nil) {
				fr.env.cpz = &bcj2Decoder{d: d, subs: subs}
			}
		}
		lr := fr.newLimited(r, size)
		// The folder's main output is the root's to measure (its account
		// stops the whole archive at the first limit); inner outputs
		// only this package sees.
		if out != f.mainOut && !math.IsInf(fr.maxRatio, 1) {
			lr.fr, lr.method = fr, methodName(c)
		}
		return lr, nil
	}
	r, err := build(f.mainOut, 0)
	if err != nil {
		fr.Close()
		return nil, err
	}
	fr.r = r
	fr.cpz, fr.cpf = fr.env.cpz, fr.env.cpf
	if f.hasCRC && f.numSub > 1 {
		fr.sumOn, fr.sumWant, fr.end = true, f.crc, f.size()
	}
	return fr, nil
}

// Read reads the folder's output.
func (fr *folderReader) Read(p []byte) (int, error) {
	if len(fr.pre) > 0 {
		n := copy(p, fr.pre)
		fr.pre = fr.pre[n:]
		fr.pos += int64(n)
		return n, nil
	}
	n, err := fr.r.Read(p)
	fr.pos += int64(n)
	if fr.sumOn {
		fr.sum = crc32.Update(fr.sum, crc32.IEEETable, p[:n])
		if fr.pos == fr.end && (err == nil || err == io.EOF) {
			fr.sumOn = false
			if fr.sum != fr.sumWant {
				return n, fmt.Errorf("%w: 7z folder %d: CRC-32 is %08x, want %08x", errs.ErrChecksum, fr.index, fr.sum, fr.sumWant)
			}
		}
	}
	if fr.cpEvery > 0 && fr.pos >= fr.cpNext {
		fr.checkpoint()
	}
	return n, err
}

// Close releases every stage's scratch memory and puts fr back in the
// pool; fr must not be used after it. A second Close (before fr is
// handed out again) does nothing.
func (fr *folderReader) Close() error {
	if !fr.live {
		return nil
	}
	for _, c := range fr.env.closers {
		c.Close()
	}
	for _, p := range fr.packs {
		p.Close()
	}
	clear(fr.env.closers)
	clear(fr.packs)
	packs, closers := fr.packs[:0], fr.env.closers[:0]
	*fr = folderReader{packs: packs} // drops every reference (decoders, archive, password)
	fr.env.closers = closers
	folderReaders.Put(fr)
	return nil
}
