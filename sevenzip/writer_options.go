package sevenzip

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/errs"
)

// Method is the compression method of the folders a Writer writes.
type Method uint8

// The methods a Writer encodes.
const (
	LZMA2 Method = iota // the default, as 7-Zip's
	LZMA
	Copy   // stored
	Zstd   // Zstandard (klauspost/compress), 7-Zip-zstd's ZSTD coder
	Brotli // Brotli (andybalholm/brotli), 7-Zip-zstd's BROTLI coder, framed as it writes it
	LZ4    // LZ4 frames (pierrec/lz4), 7-Zip-zstd's LZ4 coder
)

func (m Method) String() string {
	switch m {
	case LZMA2:
		return "LZMA2"
	case LZMA:
		return "LZMA"
	case Copy:
		return "Copy"
	case Zstd:
		return "Zstd"
	case Brotli:
		return "Brotli"
	case LZ4:
		return "LZ4"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// Filter is the branch or delta filter put before the compressor.
type Filter uint8

// Filters on write. FilterAuto (the default) looks at the first bytes of
// each file, as 7-Zip does: a PE, ELF or Mach-O executable for x86 gets
// BCJ, one for ARM64 gets ARM64, one for 32-bit ARM gets ARM; other files
// get none. Files with different filters go to different folders.
const (
	FilterAuto Filter = iota
	FilterNone
	FilterX86
	FilterARM
	FilterARMT
	FilterARM64
	FilterPPC
	FilterSPARC
	FilterDelta // distance set by DeltaDistance (default 1)
	FilterSwap2 // 7-Zip's Swap2: each 2-byte group's byte order reversed
	FilterSwap4 // 7-Zip's Swap4: each 4-byte group's
)

// WriterOption configures NewWriter. Options apply in order; a value that
// cannot be meant is an error matching errs.ErrInvalidOption.
type WriterOption func(*writerConfig) error

func invalid(format string, args ...any) error {
	return fmt.Errorf("7z writer: %w: %s", errs.ErrInvalidOption, fmt.Sprintf(format, args...))
}

// writerConfig is what the options set.
type writerConfig struct {
	method     Method
	dict       int // 0: from the level
	lc, lp, pb int
	lcSet      bool
	fastBytes  int
	threads    int
	blockSize  int
	filter     Filter
	deltaDist  int
	solidBytes int64 // 0: no limit
	solidFiles int   // 0: no limit

	archwrite.Common

	encHeaders bool
	plainHdr   bool // header compression off
	cycles     int
	saltLen    int

	spool    io.ReadWriteSeeker
	deferred bool
	volSize  int64
	volNew   func(index int) (io.Writer, error)
}

func defaultConfig() writerConfig {
	c := writerConfig{method: LZMA2, cycles: 19, deltaDist: 1}
	c.Level = 5
	return c
}

// WithMethod sets the compression method (default LZMA2). Zstd, Brotli
// and LZ4 are the 7-Zip-zstd family's coders: 7-Zip-zstd, NanaZip and
// py7zr (Zstd, Brotli) read them, 7-Zip itself does not.
func WithMethod(m Method) WriterOption {
	return func(c *writerConfig) error {
		if m > LZ4 {
			return invalid("method %d", m)
		}
		c.method = m
		return nil
	}
}

// WithLevel sets the compression level 0..9 as 7-Zip's -mx: 0 stores
// (Copy); 1..9 choose the dictionary as 7-Zip 26 does (256 KiB, 1, 4,
// 16, 32, 64, 128, 256, 256 MiB) and the encoder's effort (fast parser
// and HC4 below 5, optimal parser and BT4 from 5). Default 5. The
// encoder needs about 10 times the dictionary in memory at level 5.
func WithLevel(l int) WriterOption { return common(archwrite.Level(l)) }

// WithDictSize overrides the dictionary size the level chooses
// (4 KiB .. 1.5 GiB).
func WithDictSize(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 1<<12 || n > 3<<29 {
			return invalid("dictionary size %d", n)
		}
		c.dict = n
		return nil
	}
}

// WithLiteralBits sets LZMA's lc, lp and pb (default 3, 0, 2); LZMA2
// needs lc+lp <= 4.
func WithLiteralBits(lc, lp, pb int) WriterOption {
	return func(c *writerConfig) error {
		if lc < 0 || lc > 8 || lp < 0 || lp > 4 || pb < 0 || pb > 4 {
			return invalid("lc=%d lp=%d pb=%d", lc, lp, pb)
		}
		c.lc, c.lp, c.pb, c.lcSet = lc, lp, pb, true
		return nil
	}
}

// WithFastBytes sets the encoder's fast bytes (5..273).
func WithFastBytes(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 5 || n > 273 {
			return invalid("fast bytes %d", n)
		}
		c.fastBytes = n
		return nil
	}
}

// WithThreads sets the LZMA2 encoder's threads. The archive's bytes do
// not depend on it.
func WithThreads(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 || n > 256 {
			return invalid("threads %d", n)
		}
		c.threads = n
		return nil
	}
}

// WithBlockSize sets the LZMA2 encoder's block size (the unit of its
// threads).
func WithBlockSize(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 {
			return invalid("block size %d", n)
		}
		c.blockSize = n
		return nil
	}
}

// WithFilter sets the filter of every folder (default FilterAuto).
func WithFilter(f Filter) WriterOption {
	return func(c *writerConfig) error {
		if f > FilterSwap4 {
			return invalid("filter %d", f)
		}
		c.filter = f
		return nil
	}
}

// WithDelta selects the Delta filter with distance dist (1..256).
func WithDelta(dist int) WriterOption {
	return func(c *writerConfig) error {
		if dist < 1 || dist > 256 {
			return invalid("delta distance %d", dist)
		}
		c.filter, c.deltaDist = FilterDelta, dist
		return nil
	}
}

// WithSolid limits solid blocks as 7-Zip's -ms: a folder takes no more
// files once it holds maxBytes of data or maxFiles files (0: no limit on
// that count). The default puts every file in one folder (per filter);
// WithSolid(0, 1) writes one folder per file (non-solid).
func WithSolid(maxBytes int64, maxFiles int) WriterOption {
	return func(c *writerConfig) error {
		if maxBytes < 0 || maxFiles < 0 {
			return invalid("solid block %d bytes, %d files", maxBytes, maxFiles)
		}
		c.solidBytes, c.solidFiles = maxBytes, maxFiles
		return nil
	}
}

// WithCleanNames makes CreateHeader clean entry names it would refuse
// (see FileHeader.Name) instead: a drive letter and leading slashes are
// cut, empty and "." elements dropped, and ".." elements resolved as
// path.Clean does, those that would climb above the root dropped
// ("C:/x/../../y" is stored as "y"). A name that is empty once cleaned,
// or that an earlier entry has, is still refused.
func WithCleanNames() WriterOption { return common(archwrite.CleanNames) }

// WithFollowRoot makes AddTree follow a symlink given as its root, as
// tar -h or bsdtar -H do: the file or tree it points to is stored under
// the link's name. Symlinks under the root are stored as links.
func WithFollowRoot() WriterOption { return common(archwrite.FollowRoot) }

// WithFileErrors makes AddFS and AddTree go on past a file they cannot
// store as it is, calling handle with its name in fsys and what
// happened: a file that cannot be opened, a file of an unknown type or
// a name CreateHeader refuses is skipped; a directory that cannot be
// read is stored without its contents; a file whose read fails, or
// that changes while it is read (its size, or the modification time of
// the open file, as GNU tar checks), is stored with the bytes read, at
// most the size its Stat gave. When handle returns an error, AddTree
// stops with it; when it returns nil, the walk goes on.
func WithFileErrors(handle func(name string, err error) error) WriterOption {
	return common(archwrite.FileErrors(handle))
}

// WithPassword encrypts the data of every file with 7zAES (AES-256-CBC,
// key from SHA-256 iterated 2^19 times by default). The key is derived
// once, in NewWriter.
func WithPassword(pw string) WriterOption { return common(archwrite.Password(pw)) }

// WithEncryptedHeaders encrypts the header too (7-Zip's -mhe), hiding
// names, sizes and times; it needs WithPassword.
func WithEncryptedHeaders() WriterOption {
	return func(c *writerConfig) error { c.encHeaders = true; return nil }
}

// WithHeaderCompression turns header compression (LZMA, 7-Zip's default,
// on) off or on. Encrypted headers are always compressed.
func WithHeaderCompression(on bool) WriterOption {
	return func(c *writerConfig) error { c.plainHdr = !on; return nil }
}

// WithKDFCycles sets the key derivation to 2^n SHA-256 rounds (default
// 19, as 7-Zip; at most 24, which 7-Zip's readers accept).
func WithKDFCycles(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 || n > 24 {
			return invalid("2^%d key derivation rounds", n)
		}
		c.cycles = n
		return nil
	}
}

// WithSalt makes the key derivation use n random salt bytes (0..16,
// default 0 as 7-Zip writes).
func WithSalt(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 || n > 16 {
			return invalid("salt of %d bytes", n)
		}
		c.saltLen = n
		return nil
	}
}

// WithRandom sets the source of IVs and salt (default crypto/rand). A
// fixed source makes encrypted archives reproducible (tests,
// deduplicating backups); it must not be reused across archives whose
// secrecy matters.
func WithRandom(r io.Reader) WriterOption { return common(archwrite.Random(r)) }

// common wraps an option every writer has.
func common(o archwrite.Opt) WriterOption {
	return func(c *writerConfig) error { return o(&c.Common) }
}

// WithSpool lets NewWriter write to a plain io.Writer: the archive is
// written into spool (from its offset 0) and copied to the io.Writer,
// start header first, at Close.
func WithSpool(spool io.ReadWriteSeeker) WriterOption {
	return func(c *writerConfig) error {
		if spool == nil {
			return invalid("nil spool")
		}
		c.spool = spool
		return nil
	}
}

// WithDeferredStartHeader lets NewWriter write to a plain io.Writer
// without a spool: the writer skips the archive's first 32 bytes (the
// start header) and writes everything after it in order; after Close,
// Writer.StartHeader returns the 32 bytes the caller must put in front
// (as a multipart upload can place its first part last).
func WithDeferredStartHeader() WriterOption {
	return func(c *writerConfig) error { c.deferred = true; return nil }
}

// WithVolumes splits the archive into volumes of size bytes
// (name.7z.001, .002, … as 7-Zip's -v): create(n) returns volume n
// (1-based) when the writer first needs it. Volume 1 receives the start
// header at Close, so it must be an io.WriteSeeker or io.WriterAt. The
// writer closes each volume that is an io.Closer once it is complete.
// The io.Writer given to NewWriter is not used and may be nil.
func WithVolumes(size int64, create func(index int) (io.Writer, error)) WriterOption {
	return func(c *writerConfig) error {
		if size < 64 || create == nil {
			return invalid("volumes of %d bytes (at least 64) with a nil=%v callback", size, create == nil)
		}
		c.volSize, c.volNew = size, create
		return nil
	}
}
