package arc

import (
	"fmt"
	"math"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// ErrInvalidOption is matched by the error of an Open or NewReader given
// an option value that cannot be meant (a nil callback, a NaN ratio).
var ErrInvalidOption = errs.ErrInvalidOption

// ErrStaleIndex is matched by the error of reopening an archive with an
// index that does not describe it (Format.OpenIndex): the archive changed
// since the index was made, it is another archive, or the index is
// damaged or was altered. It also matches the root's ErrCorrupt.
var ErrStaleIndex = engine.ErrStaleIndex

// Option configures a format package's Open or NewReader, which take any
// number of them and apply them in order to the Config they resolve. Each
// With function sets one setting; an Option returns an error (matching
// ErrInvalidOption) for a value that cannot be meant. A nil Option sets
// nothing.
type Option func(*Config) error

// Validate reports a Limits value that cannot be meant: a NaN ratio, or a
// ratio between 0 and 1 (which would refuse stored data).
func (l Limits) Validate() error {
	if math.IsNaN(l.MaxRatio) {
		return fmt.Errorf("%w: MaxRatio is NaN", ErrInvalidOption)
	}
	if l.MaxRatio > 0 && l.MaxRatio < 1 {
		return fmt.Errorf("%w: MaxRatio %g is below 1 (stored data has ratio 1; use a negative value to lift the limit)", ErrInvalidOption, l.MaxRatio)
	}
	return nil
}

// WithPassword sets one password for the headers and every entry.
func WithPassword(pw string) Option {
	fn := func(*Entry) (string, error) { return pw, nil } // made once, not per Open
	return func(c *Config) error {
		c.Password = fn
		return nil
	}
}

// WithPasswordFunc sets the callback asked for a password: entry is nil
// for encrypted headers.
func WithPasswordFunc(fn func(entry *Entry) (string, error)) Option {
	return func(c *Config) error {
		if fn == nil {
			return fmt.Errorf("%w: nil password callback", ErrInvalidOption)
		}
		c.Password = fn
		return nil
	}
}

// WithLimits sets the resource limits (see Limits).
func WithLimits(l Limits) Option {
	return func(c *Config) error {
		if err := l.Validate(); err != nil {
			return err
		}
		c.Limits = l
		return nil
	}
}

// WithVolumeOpener names the first volume and says how to open the
// others (the root's WithVolumeOpener, for a format package used alone).
func WithVolumeOpener(name string, open VolumeOpener) Option {
	return func(c *Config) error {
		if open == nil {
			return fmt.Errorf("%w: nil volume opener", ErrInvalidOption)
		}
		c.Name, c.OpenVolume = name, open
		return nil
	}
}

// WithName sets the archive's name (its first volume's path), used for
// volume names and for entries that store none.
func WithName(name string) Option {
	return func(c *Config) error { c.Name = name; return nil }
}

// WithDebData opens a Debian package (.deb) as its data tarball, the
// files it installs, rather than as the ar archive of debian-binary,
// control.tar.* and data.tar.* it is (Config.DebData).
func WithDebData() Option {
	return func(c *Config) error { c.DebData = true; return nil }
}

// WithFileVersions lists older file versions (RAR "name;N") as entries.
func WithFileVersions() Option {
	return func(c *Config) error { c.FileVersions = true; return nil }
}

// WithNameDecoder decodes names stored in a legacy code page.
func WithNameDecoder(fn func(raw []byte) string) Option {
	return func(c *Config) error {
		if fn == nil {
			return fmt.Errorf("%w: nil name decoder", ErrInvalidOption)
		}
		c.DecodeName = fn
		return nil
	}
}
