package sevenzip

// Units implements arc.Units: a 7z folder is decoded as one stream, so
// the entries of a folder are one unit; an entry without data (empty
// file, directory) is a unit of its own.
func (a *Archive) Units() []int {
	u := make([]int, len(a.entries))
	for i := range u {
		if k := a.stream[i]; k >= 0 {
			u[i] = int(a.streamFolder[k])
		} else {
			u[i] = -1 - i // below every folder index: no clash
		}
	}
	return u
}

// SetEntryWorkers implements arc.EntryWorkers: how many goroutines a
// folder opened from now on may decode on (LZMA2 blocks, lzma.Reader2MT).
func (a *Archive) SetEntryWorkers(n int) { a.workers.Store(int32(max(n, 1))) }

func (a *Archive) entryWorkerCount() int {
	if n := a.workers.Load(); n > 0 {
		return int(n)
	}
	return max(a.cfg.Workers, 1)
}
