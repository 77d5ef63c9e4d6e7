package sevenzip

import "github.com/go-unarc/unarc/internal/engine"

var (
	_ engine.Units        = (*capable)(nil)
	_ engine.EntryWorkers = (*capable)(nil)
)

// Units serves engine.Units: a 7z folder is decoded as one stream, so
// the entries of a folder are one unit; an entry without data (empty
// file, directory) is a unit of its own. Folders whose decoders need
// more than Limits.MaxMemory / Config.Workers (at least 2) are one unit
// together: each is within the limit alone, but two decoded at once are
// not (two 1.8 GiB PPMd models under a 2 GiB limit), so they take turns;
// beside one of them the other workers decode folders of less than
// their share, so all at once stay under twice MaxMemory.
func (c *capable) Units() []int {
	a := (*Archive)(c)
	u := make([]int, len(a.entries))
	big := make(map[int]bool)
	firstBig := -1
	share := a.cfg.Bounds.MaxMemory / int64(max(a.cfg.Workers, 2))
	for i := range u {
		if k := a.stream[i]; k >= 0 {
			fi := int(a.streamFolder[k])
			b, seen := big[fi]
			if !seen {
				b = a.folderMemory(fi) > share
				big[fi] = b
			}
			if b && firstBig < 0 {
				firstBig = fi
			}
			if b {
				fi = firstBig
			}
			u[i] = fi
		} else {
			u[i] = -1 - i // below every folder index: no clash
		}
	}
	return u
}

// SetEntryWorkers serves engine.EntryWorkers: how many goroutines a
// folder opened from now on may decode on (LZMA2 blocks, lzma.Reader2MT).
func (c *capable) SetEntryWorkers(n int) { c.workers.Store(int32(max(n, 1))) }

func (a *Archive) entryWorkerCount() int {
	if n := a.workers.Load(); n > 0 {
		return int(n)
	}
	return max(a.cfg.Workers, 1)
}
