package unarc

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"

	"github.com/go-unarc/unarc/internal/errs"
)

// WithSpaceCheck turns Extract's free-space check on (the default) or
// off. With it on, Archive.Extract refuses with ErrLimit, before writing
// anything, when the sizes the chosen entries declare (plus 1% and one
// 4 KiB block per file for file-system overhead) do not fit in the free
// space of the destination's file system; Reader.Extract refuses an
// entry, and stops, when it would pass what was free at the start. Turn
// it off for destinations whose free space says nothing (a file system
// that compresses, deduplicates or stores sparse files as holes). Where
// the platform cannot tell the free space, nothing is checked.
func WithSpaceCheck(on bool) ExtractOption {
	return func(o *extractOptions) error { o.noSpaceCheck = !on; return nil }
}

// statFreeSpace is how the space check asks the file system; tests
// replace it.
var statFreeSpace = freeSpace

// FreeSpace is what LimitName returns for Extract's refusal of entries
// that do not fit the destination's free space (WithSpaceCheck).
const FreeSpace = "FreeSpace"

// fileOverhead is what the space check adds per file written: a file
// takes whole blocks, and tiny files take one each.
const fileOverhead = 4 << 10

// declaredNeed is what writing the declared bytes of files takes.
func declaredNeed(bytes, files int64) int64 {
	return satAdd(satAdd(bytes, bytes/100), satMul(files, fileOverhead))
}

func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

func satMul(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// writesData reports whether extracting e writes content that its
// declared size bounds (files and file copies; not directories or
// links).
func writesData(e *Entry) bool {
	return !e.IsDir() && (e.Link == LinkNone || e.Link == LinkCopy)
}

// declaredTotal sums the declared sizes of the entries of ents that keep
// selects and that produce data (data reports which), and counts them.
// Entries of unknown size (-1) add nothing: the ratio limit is theirs.
func declaredTotal(ents []*Entry, keep func(*Entry) bool, data func(*Entry) bool) (total, files int64) {
	for _, e := range ents {
		if e.Size < 0 || !data(e) || keep != nil && !keep(e) {
			continue
		}
		total = satAdd(total, e.Size)
		files++
	}
	return total, files
}

// checkDeclaredTotal refuses, before anything is decoded, an operation
// whose entries declare more output than MaxTotalSize lets the archive
// produce (what earlier operations on the same Archive produced counts).
func (a *Archive) checkDeclaredTotal(total int64) error {
	max := a.opts.bounds.MaxTotalSize
	done := a.acct.spent()
	if total <= max-done {
		return nil
	}
	if done > 0 {
		return errs.Limit("the chosen entries declare %d bytes of output; with the %d produced before, more than MaxTotalSize (%d bytes)", total, done, max)
	}
	return errs.Limit("the chosen entries declare %d bytes of output, more than MaxTotalSize (%d bytes)", total, max)
}

// checkDeclaredEntry refuses, before decoding it, a streamed entry that
// declares more output than what MaxTotalSize leaves the Reader.
func (r *Reader) checkDeclaredEntry(e *Entry) error {
	max := r.opts.bounds.MaxTotalSize
	if done := r.acct.spent(); e.Size > max-done {
		return errs.Limit("entry declares %d bytes of output; with the %d produced before, more than MaxTotalSize (%d bytes)", e.Size, done, max)
	}
	return nil
}

// spaceOf returns the free space of the file system that holds dir, or
// of its nearest existing ancestor (Extract creates dir). ok is false
// where it cannot be told.
func (o *extractOptions) spaceOf(dir string) (free int64, ok bool) {
	if o.noSpaceCheck {
		return 0, false
	}
	stat := statFreeSpace
	if dir == "" {
		dir = "."
	}
	for {
		n, err := stat(dir)
		if err == nil {
			return n, true
		}
		up := filepath.Dir(dir)
		if !errors.Is(err, fs.ErrNotExist) || up == dir {
			return 0, false
		}
		dir = up
	}
}

// checkSpace refuses writing need bytes (declaredNeed) where free are
// free.
func checkSpace(dir string, total, need, free int64) error {
	if need > free {
		return errs.LimitOf(FreeSpace, "the entries to extract declare %d bytes (%d with file-system overhead), more than the %d bytes free in %s",
			total, need, free, dir)
	}
	return nil
}
