package sevenzip

import (
	"io"

	"github.com/go-unarc/unarc/internal/lzma"
)

// lzmaOptMax bounds the options passed to an encoder.
const lzmaOptMax = 8

// lzmaOpts is an encoder's option set, comparable so a cached encoder
// is reused only for the same settings.
type lzmaOpts struct {
	o [lzmaOptMax]lzma.WriterOption
	n int
}

func (o *lzmaOpts) add(v lzma.WriterOption) { o.o[o.n] = v; o.n++ }

// lzmaCoders holds a writer's LZMA and LZMA2 encoders (the data's and
// the header's), kept across folders and, in the pooled state, across
// archives with the same settings.
type lzmaCoders struct {
	l2      *lzma.Writer2
	l2opts  lzmaOpts
	l1      *lzma.Writer
	l1opts  lzmaOpts
	hdr     [2]*lzma.Writer // header encoders: small and large dictionary
	hdrOpen *lzma.Writer
	open    compressor // the data encoder with a stream open
}

// Header dictionaries: most headers fit the small one.
const (
	hdrDictSmall = 1 << 16
	hdrDictLarge = 1 << 20
)

func dataOpts(cfg *writerConfig) lzmaOpts {
	var o lzmaOpts
	o.add(lzma.Level(cfg.Level))
	if cfg.dict > 0 {
		o.add(lzma.DictSize(int64(cfg.dict)))
	}
	if cfg.lcSet {
		o.add(lzma.LiteralBits(cfg.lc, cfg.lp, cfg.pb))
	}
	if cfg.fastBytes > 0 {
		o.add(lzma.FastBytes(cfg.fastBytes))
	}
	if cfg.method == LZMA2 {
		if cfg.threads > 0 {
			o.add(lzma.Threads(cfg.threads))
		}
		if cfg.blockSize > 0 {
			o.add(lzma.BlockSize(int64(cfg.blockSize)))
		}
	}
	return o
}

// get returns an encoder for cfg's method writing into dst; for the
// header, LZMA as 7-Zip writes headers, its dictionary from the
// header's size.
func (l *lzmaCoders) get(cfg *writerConfig, dst io.Writer, header bool, size int) (compressor, wcoder, error) {
	if header {
		k, d := 0, int64(hdrDictSmall)
		if size > hdrDictSmall {
			k, d = 1, hdrDictLarge
		}
		var err error
		if l.hdr[k] == nil {
			l.hdr[k], err = lzma.NewWriter(dst, lzma.Level(5), lzma.DictSize(d))
		} else {
			err = l.hdr[k].Reset(dst)
		}
		if err != nil {
			return nil, wcoder{}, err
		}
		l.hdrOpen = l.hdr[k]
		return l.hdr[k], lzmaSpec(l.hdr[k]), nil
	}
	o := dataOpts(cfg)
	var err error
	if cfg.method == LZMA2 {
		if l.l2 != nil && l.l2opts == o {
			err = l.l2.Reset(dst)
		} else {
			l.l2, err = lzma.NewWriter2(dst, o.o[:o.n]...)
			l.l2opts = o
		}
		if err != nil {
			l.l2 = nil
			return nil, wcoder{}, err
		}
		l.open = l.l2
		return l.l2, wcoder{method: mLZMA2, props: [5]byte{l.l2.DictByte()}, nprops: 1}, nil
	}
	if l.l1 != nil && l.l1opts == o {
		err = l.l1.Reset(dst)
	} else {
		l.l1, err = lzma.NewWriter(dst, o.o[:o.n]...)
		l.l1opts = o
	}
	if err != nil {
		l.l1 = nil
		return nil, wcoder{}, err
	}
	l.open = l.l1
	return l.l1, lzmaSpec(l.l1), nil
}

func lzmaSpec(z *lzma.Writer) wcoder {
	return wcoder{method: mLZMA, props: z.Props().Encode(), nprops: 5}
}

// release closes an encoder left open (after an error), which returns
// its pooled memory; closed encoders hold none.
func (l *lzmaCoders) release() {
	if l.open != nil {
		l.open.Close()
		l.open = nil
	}
	if l.hdrOpen != nil {
		l.hdrOpen.Close()
		l.hdrOpen = nil
	}
}
