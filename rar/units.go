package rar

import "github.com/go-unarc/unarc/internal/engine"

var (
	_ engine.Units        = (*capable)(nil)
	_ engine.EntryWorkers = (*capable)(nil)
)

// SetEntryWorkers serves engine.EntryWorkers: how many goroutines one
// entry's decoder may use (a RAR5 decoder pipelines with two or more,
// unpack50.Decoder.SetWorkers); a solid run is one unit, so it gets what
// the units running beside it leave.
func (c *capable) SetEntryWorkers(n int) { c.workers.Store(int32(max(n, 1))) }

// entryWorkers is the goroutines the next entry opened may decode with.
func (a *Archive) entryWorkers() int {
	if n := a.workers.Load(); n > 0 {
		return int(n)
	}
	return max(a.p.cfg.Workers, 1)
}

// Units serves engine.Units. A non-solid entry is a unit of its own. A
// solid entry belongs to the run that starts at the nearest earlier
// entry whose solid flag is clear: RAR (4 and 5) marks every file that
// continues the previous file's dictionary, and starts the stream afresh
// only at a file without the flag (the first file of the archive, and of
// a volume when rar was told to). A file copy or hard link reads its
// source's content, so it goes with its source.
func (c *capable) Units() []int {
	a := (*Archive)(c)
	u := make([]int, len(a.entries))
	for i := range u {
		fi := i
		if a.vis != nil {
			fi = a.vis[i]
		}
		u[i] = a.unitOf(fi)
	}
	return u
}

// unitOf labels file index fi with the file index its unit starts at.
func (a *Archive) unitOf(fi int) int {
	f := a.files[fi]
	if f.copyOf >= 0 {
		fi, f = f.copyOf, a.files[f.copyOf]
	}
	if f.method > 0 && (a.p.main.solid || f.solid) && entryData(f.e) {
		return a.runStart(fi)
	}
	return fi
}
