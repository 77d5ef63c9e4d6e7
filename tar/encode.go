package tar

import (
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/optfn"
	"github.com/go-unarc/unarc/internal/xz"
)

// The writing side of the compressors: one encoder constructor per
// Compression, and a pool of encoders keyed by their settings, so that
// writing many archives with the same options allocates no new encoder.

// encoder is a compressor writing one stream; Close ends the stream
// (never the destination), reset starts another one to w with the same
// settings.
type encoder interface {
	io.Writer
	Flush() error
	Close() error
	reset(w io.Writer)
}

// encKey is what makes two encoders interchangeable.
type encKey struct {
	comp    Compression
	level   int
	threads int
	block   int64
}

// newEncoders are the constructors, by Compression.
var newEncoders = map[Compression]func(k encKey) (encoder, error){
	Gzip: newGzipEncoder,
	Zstd: newZstdEncoder,
	XZ:   newXZEncoder,
	Lzip: newLzipEncoder,
}

func encoderOf(c Compression) func(encKey) (encoder, error) { return newEncoders[c] }

// encPools holds a sync.Pool of idle encoders per key (the collector
// may empty them: an idle encoder holds megabytes).
var encPools sync.Map // encKey → *sync.Pool

func getEncoder(k encKey, w io.Writer) (encoder, error) {
	if p, ok := encPools.Load(k); ok {
		if e, ok := p.(*sync.Pool).Get().(encoder); ok {
			e.reset(w)
			return e, nil
		}
	}
	e, err := newEncoders[k.comp](k)
	if err != nil {
		return nil, err
	}
	e.reset(w)
	return e, nil
}

func putEncoder(k encKey, e encoder) {
	e.reset(nil)
	p, ok := encPools.Load(k)
	if !ok {
		p, _ = encPools.LoadOrStore(k, new(sync.Pool))
	}
	p.(*sync.Pool).Put(e)
}

// defaultLevel is each tool's.
var defaultLevel = map[Compression]int{Gzip: 6, Zstd: 3, XZ: 6, Lzip: 6}

// stream is what NewCompressor returns: a pooled encoder (or the
// destination itself for None) until Close.
type stream struct {
	key  encKey
	e    encoder
	w    io.Writer // None
	done bool
	err  error
}

var errStreamClosed = errors.New("tar: compressor closed")

// NewCompressor returns a writer that compresses what is written to it
// into w as a single compressed file (.gz, .zst, .xz, .lz), with the
// same options as NewWriter; c overrides WithCompression, and None
// passes the bytes through. Close ends the stream and gives the encoder
// back to its pool; it never closes w. The writer also has a Flush()
// error method: after Flush, a reader of what w received decodes
// everything written so far (gzip and zstd flush a block, xz ends a
// block, lzip a member).
func NewCompressor(w io.Writer, c Compression, opts ...WriterOption) (io.WriteCloser, error) {
	s := new(stream)
	if err := s.open(w, append(opts[:len(opts):len(opts)], WithCompression(c))); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *stream) open(w io.Writer, opts []WriterOption) error {
	cfg := writerConfig{level: -1, threads: 1}
	if err := optfn.Apply(&cfg, opts); err != nil {
		return err
	}
	*s = stream{w: w}
	if cfg.comp == None {
		return nil
	}
	if cfg.level < 0 {
		cfg.level = defaultLevel[cfg.comp]
	}
	if cfg.comp != XZ {
		cfg.block = 0
	}
	if cfg.comp == Lzip {
		cfg.threads = 1
	}
	s.key = encKey(cfg)
	e, err := getEncoder(s.key, w)
	if err != nil {
		return err
	}
	s.e = e
	return nil
}

func (s *stream) Write(p []byte) (int, error) {
	switch {
	case s.err != nil:
		return 0, s.err
	case s.done:
		return 0, errStreamClosed
	case s.e == nil:
		return s.w.Write(p)
	}
	n, err := s.e.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// Flush makes everything written so far decodable from what the
// destination received.
func (s *stream) Flush() error {
	switch {
	case s.err != nil:
		return s.err
	case s.done:
		return errStreamClosed
	case s.e == nil:
		return nil
	}
	s.err = s.e.Flush()
	return s.err
}

// Close ends the stream and releases the encoder.
func (s *stream) Close() error {
	if s.done {
		return s.err
	}
	s.done = true
	if s.e == nil {
		return s.err
	}
	err := s.e.Close()
	if s.err == nil {
		s.err = err
	}
	putEncoder(s.key, s.e)
	s.e = nil
	return s.err
}

// gzip: klauspost/compress, one member; with threads, independent
// members compressed in parallel (encode_gzip.go).

type gzipEncoder struct{ *gzip.Writer }

func newGzipEncoder(k encKey) (encoder, error) {
	if k.threads > 1 {
		return newGzipMembers(k)
	}
	g, err := gzip.NewWriterLevel(io.Discard, k.level)
	if err != nil {
		return nil, invalid("gzip level %d", k.level)
	}
	return gzipEncoder{g}, nil
}

func (g gzipEncoder) reset(w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	g.Reset(w)
}

// zstd: klauspost/compress, one frame with its XXH64 checksum; its
// concurrency is the threads.

type zstdEncoder struct{ *zstd.Encoder }

func newZstdEncoder(k encKey) (encoder, error) {
	z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(max(k.level, 1))),
		zstd.WithEncoderConcurrency(k.threads), zstd.WithEncoderCRC(true))
	if err != nil {
		return nil, invalid("zstd: %v", err)
	}
	return zstdEncoder{z}, nil
}

func (z zstdEncoder) reset(w io.Writer) {
	if w == nil {
		w = io.Discard
	}
	z.Reset(w)
}

// xz: our LZMA2 in internal/xz's container. The dictionary follows xz's
// presets; the effort, 7-Zip's levels (xz -0…-3 are its fast modes).

var xzDict = [10]int64{256 << 10, 1 << 20, 2 << 20, 4 << 20, 4 << 20, 8 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20}

// lzmaEffort maps a tool's level to the LZMA encoder's (fast parser
// below 4, optimal from 4 as xz and lzip switch).
func lzmaEffort(level int) lzma.WriterOption {
	if level >= 4 {
		return lzma.Level(max(level, 5))
	}
	return lzma.Level(level)
}

type xzEncoder struct{ *xz.Writer }

func newXZEncoder(k encKey) (encoder, error) {
	z, err := xz.NewWriter(io.Discard, xz.WriterOptions{
		Check: xz.CheckCRC64, BlockSize: k.block, Threads: k.threads,
		LZMA: []lzma.WriterOption{lzmaEffort(k.level), lzma.DictSize(xzDict[k.level])},
	})
	if err != nil {
		return nil, err
	}
	return xzEncoder{z}, nil
}

func (z xzEncoder) reset(w io.Writer) { z.Reset(w) }
