package sevenzip

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// The writer's encoders for the 7-Zip-zstd family's coders: Zstd
// (klauspost/compress), Brotli (andybalholm/brotli) and LZ4
// (pierrec/lz4), each kept across folders for its level. The level
// 1..9 of WithLevel maps to the encoder's own scale, which the coder's
// properties record (version major, minor, level [, two reserved bytes]:
// 5 bytes for ZSTD and LZ4, 3 for BROTLI, as 7-Zip-zstd requires).

// zstdLevels and brotliQualities map WithLevel's 1..9.
var (
	zstdLevels      = [10]int{1, 1, 2, 3, 5, 7, 9, 12, 15, 19}
	brotliQualities = [10]int{1, 1, 2, 3, 4, 5, 6, 7, 9, 11}
	lz4Levels       = [10]lz4.CompressionLevel{lz4.Fast, lz4.Fast, lz4.Level2, lz4.Level3, lz4.Level4, lz4.Level5, lz4.Level6, lz4.Level7, lz4.Level8, lz4.Level9}
)

// streamCoders holds the three encoders.
type streamCoders struct {
	zs      *zstd.Encoder
	zsLevel int
	lz      *lz4.Writer
	br      brotliEnc
	open    compressor // the encoder with a stream open
}

// get returns cfg's method's encoder writing into dst.
func (s *streamCoders) get(cfg *writerConfig, dst io.Writer) (compressor, wcoder, error) {
	l := min(max(cfg.Level, 1), 9)
	switch cfg.method {
	case Zstd:
		zl := zstdLevels[l]
		if s.zs == nil || s.zsLevel != zl {
			z, err := zstd.NewWriter(dst, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(zl)), zstd.WithEncoderConcurrency(1))
			if err != nil {
				return nil, wcoder{}, err
			}
			s.zs, s.zsLevel = z, zl
		} else {
			s.zs.Reset(dst)
		}
		s.open = s.zs
		return s.zs, wcoder{method: mZstd, props: [5]byte{1, 5, byte(zl)}, nprops: 5}, nil
	case LZ4:
		if s.lz == nil {
			s.lz = lz4.NewWriter(dst)
		} else {
			s.lz.Reset(dst)
		}
		if err := s.lz.Apply(lz4.CompressionLevelOption(lz4Levels[l]), lz4.ChecksumOption(true)); err != nil {
			return nil, wcoder{}, err
		}
		s.open = s.lz
		return s.lz, wcoder{method: mLZ4, props: [5]byte{1, 9, byte(l)}, nprops: 5}, nil
	}
	q := brotliQualities[l]
	s.br.reset(dst, q)
	s.open = &s.br
	return &s.br, wcoder{method: mBrotli, props: [5]byte{1, 0, byte(q)}, nprops: 3}, nil
}

// release closes an encoder left open (after an error).
func (s *streamCoders) release() {
	if s.open != nil {
		s.open.Close()
		s.open = nil
	}
	if s.zs != nil {
		s.zs.Reset(nil)
	}
	if s.lz != nil {
		s.lz.Reset(nil)
	}
	s.br.dst = nil
}

// brotliChunk is the input each framed brotli stream takes: 7-Zip-zstd
// splits its input so too (one chunk per thread), and its frame header
// records the chunk's size in 64 KiB units in 16 bits.
const brotliChunk = 4 << 20

// brotliEnc writes brotli streams as 7-Zip-zstd does (method_brotli.go):
// each chunk of input one stream, behind the 16-byte frame header that
// gives its compressed size, which is why a chunk is compressed into
// buf before it is written.
type brotliEnc struct {
	w       *brotli.Writer
	quality int
	dst     io.Writer
	buf     bytes.Buffer
	n       int  // input bytes in the current chunk
	started bool // a chunk is open in w
	frames  int
	err     error
}

func (b *brotliEnc) reset(dst io.Writer, quality int) {
	if b.w == nil || b.quality != quality {
		b.w, b.quality = brotli.NewWriterLevel(&b.buf, quality), quality
	}
	b.dst, b.n, b.started, b.frames, b.err = dst, 0, false, 0, nil
	b.buf.Reset()
}

func (b *brotliEnc) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 && b.err == nil {
		if !b.started {
			b.buf.Reset()
			b.w.Reset(&b.buf)
			b.started = true
		}
		take := min(len(p), brotliChunk-b.n)
		if _, err := b.w.Write(p[:take]); err != nil {
			b.err = err
			break
		}
		b.n += take
		p = p[take:]
		if b.n == brotliChunk {
			b.flush()
		}
	}
	if b.err != nil {
		return total - len(p), b.err
	}
	return total, nil
}

// flush ends the chunk's stream and writes its frame.
func (b *brotliEnc) flush() {
	if b.err = b.w.Close(); b.err != nil {
		return
	}
	var h [brFrameLen]byte
	binary.LittleEndian.PutUint32(h[0:], brFrameMagic)
	binary.LittleEndian.PutUint32(h[4:], brFrameSize)
	binary.LittleEndian.PutUint32(h[8:], uint32(b.buf.Len()))
	binary.LittleEndian.PutUint16(h[12:], brMagic)
	binary.LittleEndian.PutUint16(h[14:], uint16((b.n+64<<10-1)>>16))
	if _, b.err = b.dst.Write(h[:]); b.err == nil {
		_, b.err = b.dst.Write(b.buf.Bytes())
	}
	b.n, b.started = 0, false
	b.frames++
}

// Close writes the last chunk (an empty stream when there was no input,
// so the coder's stream has a frame).
func (b *brotliEnc) Close() error {
	if b.err == nil && (b.started || b.frames == 0) {
		if !b.started {
			b.buf.Reset()
			b.w.Reset(&b.buf)
			b.started = true
		}
		b.flush()
	}
	if b.buf.Cap() > brotliChunk*2 {
		b.buf = bytes.Buffer{}
	}
	return b.err
}
