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
	Level      int    // 0..9, 7-Zip's -mx scale
	Password   string // "": no encryption
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

// Put keeps st for a later Get, unless the list is full; it reports
// whether st was kept.
func (f *FreeList[T]) Put(st *T) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.l) < f.Max {
		f.l = append(f.l, st)
		return true
	}
	return false
}

// Level is WithLevel(l): 0..9 on 7-Zip's -mx scale.
func Level(l int) Opt {
	return func(c *Common) error {
		if l < 0 || l > 9 {
			return fmt.Errorf("%w: level %d (want 0..9)", errs.ErrInvalidOption, l)
		}
		c.Level = l
		return nil
	}
}

// Password is WithPassword(pw); an empty one is refused (an unset
// variable must not write an archive in clear).
func Password(pw string) Opt {
	return func(c *Common) error {
		if pw == "" {
			return fmt.Errorf("%w: empty password", errs.ErrInvalidOption)
		}
		c.Password = pw
		return nil
	}
}

// Lifecycle is how a writer ends: once, with a sticky error, its pooled
// state released on every way out.
type Lifecycle struct {
	Done bool
	Err  error // sticky: the archive cannot be completed
}

// Fail records err as the sticky error (the first one stays) and
// returns it.
func (l *Lifecycle) Fail(err error) error {
	if l.Err == nil {
		l.Err = err
	}
	return err
}

// Check returns closed after Close or Abort, else the sticky error.
func (l *Lifecycle) Check(closed error) error {
	if l.Done {
		return closed
	}
	return l.Err
}

// Close runs finish (the writer's last records) once, then release,
// told whether finish failed; closed is the error of a second Close.
func (l *Lifecycle) Close(closed error, finish func() error, release func(failed bool)) error {
	if l.Done {
		return closed
	}
	err := finish()
	l.Done = true
	if err != nil {
		l.Fail(err)
	}
	release(err != nil)
	return err
}

// Abort ends the writer without finishing it: aborted becomes its
// error (unless it had one) and release runs. Abort after Close does
// nothing.
func (l *Lifecycle) Abort(aborted error, release func(failed bool)) {
	if l.Done {
		return
	}
	l.Done = true
	l.Fail(aborted)
	release(true)
}
