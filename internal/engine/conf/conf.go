// Package conf resolves arc Options into the arc.Config a format opens
// with, and holds the Options only the library's own packages give (the
// key-derivation budget, the workers per entry). It sits above arc, which
// holds engine.Settings in its Config; engine sits below arc.
//
// A Config's Limits are resolved here and nowhere else: Apply is the one
// place that calls Limits.WithDefaults for a format, so a format never
// defaults them again.
package conf

import (
	"fmt"

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
	if err := dst.Limits.Validate(); err != nil {
		*dst = arc.Config{}
		return err
	}
	dst.Limits = dst.Limits.WithDefaults()
	return nil
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

// NewBudget starts a key-derivation account under l (resolved here).
func NewBudget(l arc.Limits) *engine.Budget {
	return engine.NewBudget(l.WithDefaults().MaxKDFRounds)
}
