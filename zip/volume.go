package zip

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
)

// Spanned (split) archives, APPNOTE 8: disk i < last is "name.z01" …
// (WinZip's .zipx sets use ".zx01" …), the last disk is the file holding
// the end record, opened by the caller. Offsets in the central directory
// are relative to the start of the disk they name, so the volumes are
// joined into one address space and each offset gets its disk's start.

// joined is the concatenation of the volumes as one io.ReaderAt.
type joined struct {
	ras    []io.ReaderAt
	starts []int64 // starts[i] is volume i's offset; starts[len(ras)] is the total size
}

func (j *joined) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for len(p) > 0 {
		if off >= j.starts[len(j.ras)] {
			return n, io.EOF
		}
		i := sort.Search(len(j.ras), func(i int) bool { return j.starts[i+1] > off })
		m := j.starts[i+1] - off
		if m > int64(len(p)) {
			m = int64(len(p))
		}
		k, err := j.ras[i].ReadAt(p[:m], off-j.starts[i])
		n += k
		if k < int(m) {
			if err == nil || err == io.EOF {
				err = errs.Truncated(fmt.Sprintf("volume %d is shorter than it said", i+1))
			}
			return n, err
		}
		p, off = p[m:], off+m
	}
	return n, nil
}

// volumeName is the name of disk i (from 0) of a set whose last disk is
// last.
func volumeName(last string, i int) string {
	base, ext := last, ""
	if k := strings.LastIndexByte(last, '.'); k > strings.LastIndexByte(last, '/') {
		base, ext = last[:k], strings.ToLower(last[k:])
	}
	if ext == ".zipx" {
		return fmt.Sprintf("%s.zx%02d", base, i+1)
	}
	return fmt.Sprintf("%s.z%02d", base, i+1)
}

// joinVolumes opens disks 0 … lastDisk-1 beside the archive and joins them
// with the last one (a.ra).
func (a *Archive) joinVolumes(lastDisk uint32) error {
	if a.cfg.OpenVolume == nil || a.cfg.Name == "" {
		return errs.Unsupported("spanned ZIP of %d disks opened without access to its other volumes", lastDisk+1)
	}
	if lastDisk > 9999 {
		return errs.Corrupt("spanned ZIP claims %d disks", lastDisk+1)
	}
	j := &joined{starts: []int64{0}}
	for i := 0; i < int(lastDisk); i++ {
		name := volumeName(a.cfg.Name, i)
		ra, size, err := a.cfg.OpenVolume(name)
		if err != nil {
			return fmt.Errorf("%w: volume %s of a spanned ZIP: %w", errs.ErrTruncated, name, err)
		}
		j.ras = append(j.ras, ra)
		j.starts = append(j.starts, j.starts[i]+size)
	}
	j.ras = append(j.ras, a.ra)
	j.starts = append(j.starts, j.starts[lastDisk]+a.size)
	a.ra, a.size, a.diskStarts = j, j.starts[len(j.ras)], j.starts
	return nil
}
