package arc

import (
	"fmt"
	"math"

	"github.com/go-unarc/unarc/internal/errs"
)

// ErrInvalidOption is matched by the error of an Open or NewReader given
// an option value that cannot be meant (a nil callback, a NaN ratio).
var ErrInvalidOption = errs.ErrInvalidOption

// Option configures a format package's Open or NewReader, which take any
// number of them and apply them in order. The With functions set one
// field each; a *Config is itself an Option that sets every field at
// once (what the root package passes down). A nil Option or a nil
// *Config sets nothing.
type Option interface {
	applyTo(c *Config) error
}

type optionFunc func(c *Config) error

func (f optionFunc) applyTo(c *Config) error { return f(c) }

func (c *Config) applyTo(dst *Config) error {
	if c != nil {
		*dst = *c
	}
	return nil
}

// NewConfig applies opts to a zero Config, checks the result, and
// resolves its Limits (WithDefaults). Format packages call it first.
func NewConfig(opts ...Option) (Config, error) {
	var c Config
	if err := Configure(&c, opts...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Configure is NewConfig into *dst (zeroed first), for a format that
// keeps its Config inside a value already on the heap: the options are
// applied through an interface, so NewConfig's own Config escapes, and
// that is one allocation per Open.
func Configure(dst *Config, opts ...Option) error {
	*dst = Config{}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyTo(dst); err != nil {
			*dst = Config{}
			return err
		}
	}
	if err := dst.Limits.Validate(); err != nil {
		*dst = Config{}
		return err
	}
	dst.Limits = dst.Limits.WithDefaults()
	return nil
}

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
	return optionFunc(func(c *Config) error {
		c.Password = fn
		return nil
	})
}

// WithPasswordFunc sets the callback asked for a password: entry is nil
// for encrypted headers.
func WithPasswordFunc(fn func(entry *Entry) (string, error)) Option {
	return optionFunc(func(c *Config) error {
		if fn == nil {
			return fmt.Errorf("%w: nil password callback", ErrInvalidOption)
		}
		c.Password = fn
		return nil
	})
}

// WithLimits sets the resource limits (see Limits).
func WithLimits(l Limits) Option {
	return optionFunc(func(c *Config) error {
		if err := l.Validate(); err != nil {
			return err
		}
		c.Limits = l
		return nil
	})
}

// WithVolumes names the first volume and says how to open the others.
func WithVolumes(name string, open VolumeOpener) Option {
	return optionFunc(func(c *Config) error {
		if open == nil {
			return fmt.Errorf("%w: nil volume opener", ErrInvalidOption)
		}
		c.Name, c.OpenVolume = name, open
		return nil
	})
}

// WithName sets the archive's name (its first volume's path), used for
// volume names and for entries that store none.
func WithName(name string) Option {
	return optionFunc(func(c *Config) error { c.Name = name; return nil })
}

// WithBudget shares a key-derivation Budget (one per archive).
func WithBudget(b *Budget) Option {
	return optionFunc(func(c *Config) error {
		if b == nil {
			return fmt.Errorf("%w: nil budget", ErrInvalidOption)
		}
		c.Budget = b
		return nil
	})
}

// WithFileVersions lists older file versions (RAR "name;N") as entries.
func WithFileVersions() Option {
	return optionFunc(func(c *Config) error { c.FileVersions = true; return nil })
}

// WithNameDecoder decodes names stored in a legacy code page.
func WithNameDecoder(fn func(raw []byte) string) Option {
	return optionFunc(func(c *Config) error {
		if fn == nil {
			return fmt.Errorf("%w: nil name decoder", ErrInvalidOption)
		}
		c.DecodeName = fn
		return nil
	})
}
