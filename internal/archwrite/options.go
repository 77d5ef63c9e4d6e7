package archwrite

import (
	"fmt"
	"io"
	"sync"

	"github.com/go-unarc/unarc/internal/errs"
)

// Common is the part of a writer's configuration every writer has: the
// name, tree and random-source options.
type Common struct {
	CleanNames bool
	FollowRoot bool
	FileErrors func(name string, err error) error
	Random     io.Reader
}

// Opt is a change of Common; each writer's WriterOption wraps one.
type Opt func(*Common) error

// CleanNames is WithCleanNames.
func CleanNames(c *Common) error { c.CleanNames = true; return nil }

// FollowRoot is WithFollowRoot.
func FollowRoot(c *Common) error { c.FollowRoot = true; return nil }

// FileErrors is WithFileErrors(handle).
func FileErrors(handle func(name string, err error) error) Opt {
	return func(c *Common) error {
		if handle == nil {
			return fmt.Errorf("%w: nil file error handler", errs.ErrInvalidOption)
		}
		c.FileErrors = handle
		return nil
	}
}

// Random is WithRandom(r).
func Random(r io.Reader) Opt {
	return func(c *Common) error {
		if r == nil {
			return fmt.Errorf("%w: nil random source", errs.ErrInvalidOption)
		}
		c.Random = r
		return nil
	}
}

// FreeList keeps up to Max free writer states on a short list the
// garbage collector does not empty (a sync.Pool drops its items every
// other GC, and a new state means new encoders).
type FreeList[T any] struct {
	mu  sync.Mutex
	l   []*T
	Max int
}

// Get returns a free state, or nil.
func (f *FreeList[T]) Get() *T {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.l); n > 0 {
		st := f.l[n-1]
		f.l[n-1] = nil
		f.l = f.l[:n-1]
		return st
	}
	return nil
}

// Put keeps st for a later Get, unless the list is full.
func (f *FreeList[T]) Put(st *T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.l) < f.Max {
		f.l = append(f.l, st)
	}
}
