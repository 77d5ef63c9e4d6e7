// Package conf resolves arc Options into the arc.Config a format opens
// with, and holds the Options only the library's own packages give (the
// key-derivation budget, the workers per entry). It sits above arc, which
// holds engine.Settings in its Config; engine sits below arc.
//
// Limits are resolved here and nowhere else: Limits (which Apply and the
// root call) validates an arc.Limits and turns it into the engine.Limits
// every consumer takes, by engine.ResolveLimits with arc.DefaultLimits.
// A format reads cfg.Bounds and never defaults a limit itself.
package conf

import (
	"fmt"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/srcsize"
)

// New applies opts to a zero Config, checks the result, and resolves
// its Limits. Format packages call it (or Apply) first.
func New(opts ...arc.Option) (arc.Config, error) {
	var c arc.Config
	if err := Apply(&c, opts...); err != nil {
		return arc.Config{}, err
	}
	return c, nil
}

// ForInput is how a format's Open starts: it checks that ra holds size
// bytes (srcsize.Check) and resolves opts (New).
func ForInput(ra io.ReaderAt, size int64, opts ...arc.Option) (arc.Config, error) {
	if err := srcsize.Check(ra, size); err != nil {
		return arc.Config{}, err
	}
	return New(opts...)
}

// Apply is New into *dst (zeroed first), for a format that keeps its
// Config inside a value already on the heap. On an error *dst is zero.
func Apply(dst *arc.Config, opts ...arc.Option) error {
	*dst = arc.Config{}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(dst); err != nil {
			*dst = arc.Config{}
			return err
		}
	}
	b, err := Limits(dst.Limits)
	if err != nil {
		*dst = arc.Config{}
		return err
	}
	dst.Bounds = b
	return nil
}

// Limits validates l (arc.Limits.Validate) and resolves it against
// arc.DefaultLimits: the one producer of the engine.Limits that the
// formats, the root and the budgets apply.
func Limits(l arc.Limits) (engine.Limits, error) {
	if err := l.Validate(); err != nil {
		return engine.Limits{}, err
	}
	return engine.ResolveLimits(engine.LimitsRequest(l), engine.LimitsRequest(arc.DefaultLimits)), nil
}

// MustLimits is Limits for a value known to be valid (a literal in a
// test, arc.Limits{} for the defaults); it panics on an invalid one.
func MustLimits(l arc.Limits) engine.Limits {
	b, err := Limits(l)
	if err != nil {
		panic(err)
	}
	return b
}

// ForIndex is the Config a format's OpenIndex (arc.Format.OpenIndex)
// starts from: cfg resolved (New), after a negative size is refused.
func ForIndex(size int64, cfg *arc.Config) (arc.Config, error) {
	if err := srcsize.Negative(size); err != nil {
		return arc.Config{}, err
	}
	return New(From(cfg))
}

// From is the Option that sets every field of *c at once (it replaces
// what came before): what a Format's Open passes to its package's Open,
// and how a test hands a whole Config over. A nil c sets nothing.
func From(c *arc.Config) arc.Option {
	if c == nil {
		return nil
	}
	return func(dst *arc.Config) error {
		*dst = *c
		return nil
	}
}

// Budget shares a key-derivation Budget (one per archive).
func Budget(b *engine.Budget) arc.Option {
	return func(c *arc.Config) error {
		if b == nil {
			return fmt.Errorf("%w: nil budget", arc.ErrInvalidOption)
		}
		c.Budget = b
		return nil
	}
}

// Workers sets how many goroutines one entry's decoders may use
// (engine.Settings.Workers).
func Workers(n int) arc.Option {
	return func(c *arc.Config) error {
		c.Workers = n
		return nil
	}
}

// NewBudget starts a key-derivation account under l's MaxKDFRounds.
func NewBudget(l engine.Limits) *engine.Budget {
	return engine.NewBudget(l.MaxKDFRounds)
}
