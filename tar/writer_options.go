package tar

import (
	"fmt"
	"runtime"

	"github.com/go-unarc/unarc/internal/errs"
)

// Compression is the stream compressor a Writer or NewCompressor writes.
type Compression uint8

// The compressors that write. bzip2 and .lzma are read, not written
// (there is no bzip2 encoder yet).
const (
	None Compression = Compression(kindNone) // a plain tar, or the bytes as they are
	Gzip Compression = Compression(kindGzip) // RFC 1952, klauspost/compress's Deflate
	XZ   Compression = Compression(kindXZ)   // .xz: LZMA2 in blocks, CRC64
	Zstd Compression = Compression(kindZstd) // klauspost/compress's zstd, XXH64
	Lzip Compression = Compression(kindLzip) // .lz: LZMA, CRC32
)

// String is the compressor's name: "gzip", "xz", "zstd", "lzip" or
// "none".
func (c Compression) String() string { return compKind(c).String() }

// WriterOption configures NewWriter and NewCompressor. Options apply in
// order; a value that cannot be meant is an error matching
// unarc.ErrInvalidOption.
type WriterOption func(*writerConfig) error

type writerConfig struct {
	comp    Compression
	level   int   // -1: the compressor's default
	threads int   // 1: on the caller's goroutine
	block   int64 // xz block size; 0: 3 × the dictionary
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("tar writer: %w: %s", errs.ErrInvalidOption, fmt.Sprintf(format, args...))
}

// WithCompression sets the compressor around the tar stream (default
// None).
func WithCompression(c Compression) WriterOption {
	return func(cfg *writerConfig) error {
		if c != None && encoderOf(c) == nil {
			return invalid("compression %d", c)
		}
		cfg.comp = c
		return nil
	}
}

// WithLevel sets the compression level 0..9 as each tool's -0 … -9:
// gzip -6, zstd -3, xz -6 and lzip -6 by default. xz and lzip take
// their dictionary sizes from the level as those tools do (xz -6: 8 MiB,
// -9: 64 MiB; lzip -6: 8 MiB, -9: 32 MiB); gzip -0 stores.
func WithLevel(n int) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 0 || n > 9 {
			return invalid("level %d (want 0..9)", n)
		}
		cfg.level = n
		return nil
	}
}

// WithThreads sets how many goroutines compress (0: GOMAXPROCS; default
// 1). zstd runs klauspost's concurrent encoder; xz encodes that many
// blocks at once (its output does not depend on it); gzip above 1
// compresses 1 MiB pieces as independent members at once, as pigz -i
// (its output then differs from one goroutine's); lzip compresses on
// one goroutine whatever the setting.
func WithThreads(n int) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 0 || n > 256 {
			return invalid("threads %d", n)
		}
		if n == 0 {
			n = runtime.GOMAXPROCS(0)
		}
		cfg.threads = n
		return nil
	}
}

// WithBlockSize sets the uncompressed size of an xz block (at least
// 4 KiB; default 3 × the dictionary, as xz -T does). Each block is
// compressed, and can be decompressed, independently of the others.
func WithBlockSize(n int64) WriterOption {
	return func(cfg *writerConfig) error {
		if n < 4<<10 || n > 1<<30 {
			return invalid("block size %d (want 4 KiB .. 1 GiB)", n)
		}
		cfg.block = n
		return nil
	}
}
