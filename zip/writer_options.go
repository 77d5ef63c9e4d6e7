package zip

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/errs"
)

// WriterOption configures NewWriter. Options apply in order; a value that
// cannot be meant is an error matching unarc.ErrInvalidOption, returned
// by the Writer's first Create, CreateHeader, CreateRaw, AddFS or Close.
type WriterOption func(*writerConfig) error

func invalid(format string, args ...any) error {
	return fmt.Errorf("zip writer: %w: %s", errs.ErrInvalidOption, fmt.Sprintf(format, args...))
}

// writerConfig is what the options set.
type writerConfig struct {
	method    uint16
	threads   int // 0: one per CPU
	zipCrypto bool
	archwrite.Common
}

func defaultConfig() writerConfig {
	c := writerConfig{method: Deflate}
	c.Level = 5
	return c
}

// WithMethod sets the method of Create and AddFS (default Deflate):
// Store, Deflate, LZMA or Zstd.
func WithMethod(m uint16) WriterOption {
	return func(c *writerConfig) error {
		if !writable(m) {
			return invalid("method %d (want Store, Deflate, LZMA or Zstd)", m)
		}
		c.method = m
		return nil
	}
}

// WithLevel sets the compression level 0..9, on 7-Zip's -mx scale
// (default 5): 0 stores every entry; Deflate takes the level as
// klauspost/compress/flate's, Zstd maps 1..2, 3..5, 6..7 and 8..9 to
// its fastest, default, better and best speeds, LZMA uses it as 7-Zip
// does (level 5: 16 MiB dictionary).
func WithLevel(l int) WriterOption { return common(archwrite.Level(l)) }

// WithThreads sets how many goroutines compress entries (default 0:
// one per CPU; 1 compresses on the caller's). Entries that end within
// the held-back first MiB, and the 1 MiB segments of longer Deflate
// entries, are compressed in parallel and written in order; the
// archive's bytes do not depend on the count. Longer Zstd and LZMA
// entries are compressed on the caller's goroutine.
func WithThreads(n int) WriterOption {
	return func(c *writerConfig) error {
		if n < 0 || n > 256 {
			return invalid("threads %d (want 0..256)", n)
		}
		c.threads = n
		return nil
	}
}

// WithPassword encrypts the data of every file (not directories nor
// symlinks, which bsdtar could not read then) with
// WinZip AES-256, version AE-2: a random 16-byte salt per entry, keys
// from PBKDF2-HMAC-SHA1 (1000 rounds), AES in CTR mode, and an
// HMAC-SHA1-80 authentication code after the data; the CRC is not
// stored (the code checks the data). Names, sizes and times stay
// readable. 7-Zip, WinZip, bsdtar and unarc read it; Info-ZIP unzip does
// not.
func WithPassword(pw string) WriterOption { return common(archwrite.Password(pw)) }

// WithZipCrypto makes WithPassword use the traditional PKWARE cipher
// ("ZipCrypto", APPNOTE 6.1) instead of AES, for readers that know no
// other (Info-ZIP unzip, old systems). It is weak: a known-plaintext
// attack recovers the keys from 12 bytes of known content in hours, so
// it hides nothing from a determined reader.
func WithZipCrypto() WriterOption {
	return func(c *writerConfig) error { c.zipCrypto = true; return nil }
}

// WithRandom sets the source of the AES salts and ZipCrypto headers
// (default crypto/rand). A fixed source makes encrypted archives
// reproducible (tests, deduplicating backups); it must not be reused
// across archives whose secrecy matters.
func WithRandom(r io.Reader) WriterOption { return common(archwrite.Random(r)) }

// WithCleanNames makes CreateHeader clean entry names it would refuse
// (see FileHeader.Name) instead, as the 7z writer's option does: a drive
// letter and leading slashes are cut, empty and "." elements dropped,
// and ".." elements resolved as path.Clean does. A name that is empty
// once cleaned, or that an earlier entry has, is still refused.
func WithCleanNames() WriterOption { return common(archwrite.CleanNames) }

// WithFollowRoot makes AddTree follow a symlink given as its root: the
// file or tree it points to is stored under the link's name.
func WithFollowRoot() WriterOption { return common(archwrite.FollowRoot) }

// WithFileErrors makes AddFS and AddTree go on past a file they cannot
// store as it is (as the 7z writer's WithFileErrors): handle gets its
// name in fsys and what happened; when it returns an error, the walk
// stops with it.
func WithFileErrors(handle func(name string, err error) error) WriterOption {
	return common(archwrite.FileErrors(handle))
}

// common wraps an option every writer has.
func common(o archwrite.Opt) WriterOption {
	return func(c *writerConfig) error { return o(&c.Common) }
}
