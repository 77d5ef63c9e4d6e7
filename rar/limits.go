package rar

import (
	"unsafe"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// limits are what rar applies of an archive's resolved limits
// (cfg.Bounds): the header reader checks the index against them, the
// entry readers the sizes and dictionaries.
type limits struct {
	dict      int64 // MaxDictionary
	mem       int64 // MaxMemory
	entrySize int64 // MaxEntrySize
	entries   int64 // MaxEntries
	headerMem int64 // MaxHeaderMemory
}

// resolveLimits takes what rar applies from l, which conf resolved: the
// values are in force as they are, nothing is defaulted here.
func resolveLimits(l *engine.Limits) limits {
	return limits{dict: l.MaxDictionary, mem: l.MaxMemory, entrySize: l.MaxEntrySize,
		entries: l.MaxEntries, headerMem: l.MaxHeaderMemory}
}

// checkSize applies Limits.MaxEntrySize to the declared size.
func (l *limits) checkSize(f *file) error {
	if f.e.Size > l.entrySize {
		return errs.Limit("%d bytes exceed MaxEntrySize (%d)", f.e.Size, l.entrySize)
	}
	return nil
}

// checkDict applies the dictionary limit before any decoder allocates.
func (l *limits) checkDict(f *file) error {
	if f.dict > l.dict {
		return errs.Limit("dictionary of %d MiB exceeds MaxDictionary (%d MiB)", f.dict>>20, l.dict>>20)
	}
	return nil
}

// entryOverhead is the index memory of one entry beyond its strings: the
// arc.Entry and file values, one part, the two slice slots that point at
// them and the name map resolve builds.
const entryOverhead = int64(unsafe.Sizeof(arc.Entry{})+unsafe.Sizeof(file{})+unsafe.Sizeof(part{})) + 2*8 + 64

// indexCount is the index an Archive keeps, counted as the headers are
// read: the entries admitted so far and the memory they hold, bounded by
// MaxEntries and MaxHeaderMemory. A nil one counts nothing (a Reader
// keeps no index).
type indexCount struct {
	n   int64 // entries
	mem int64 // bytes
}

// admitNew checks MaxEntries before a header that starts a new entry is
// parsed, so an archive over the limit fails before anything is allocated
// for the entry.
func (c *indexCount) admitNew(l *limits) error {
	if c != nil && c.n >= l.entries {
		return errs.Limit("more than %d entries (MaxEntries)", l.entries)
	}
	return nil
}

// admit accounts a parsed entry that the Archive will keep against
// MaxHeaderMemory.
func (c *indexCount) admit(l *limits, f *file) error {
	if c == nil || !f.first {
		return nil
	}
	e := f.e
	n := entryOverhead + int64(len(e.Name)+len(e.LinkTarget)+len(e.Method)+len(e.Comment)+
		len(f.salt)+len(f.check)+len(f.blake))
	if c.mem+n > l.headerMem {
		return errs.Limit("index of %d entries needs more than %d bytes (MaxHeaderMemory)", c.n+1, l.headerMem)
	}
	c.mem += n
	c.n++
	return nil
}
