package zip

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/volume"
)

// Spanned (split) archives, APPNOTE 8: disk i < last is "name.z01" …
// (WinZip's .zipx sets use ".zx01" …; internal/volume.ZIPDisk), the last
// disk is the file holding the end record, opened by the caller. Offsets
// in the central directory are relative to the start of the disk they
// name, so the volumes are joined into one address space
// (internal/volume.Concat) and each offset gets its disk's start.

// joinVolumes opens disks 0 … lastDisk-1 beside the archive and joins them
// with the last one (a.ra). A missing disk is errs.ErrTruncated naming it;
// more disks than volume.MaxParts is errs.ErrLimit.
func (a *Archive) joinVolumes(lastDisk uint32) error {
	if a.cfg.OpenVolume == nil || a.cfg.Name == "" {
		return errs.Unsupported("spanned ZIP of %d disks opened without access to its other volumes", uint64(lastDisk)+1)
	}
	if lastDisk >= volume.MaxParts {
		return errs.Limit("spanned ZIP of %d disks: more than %d volumes", uint64(lastDisk)+1, volume.MaxParts)
	}
	var j volume.Concat
	for i := 0; i < int(lastDisk); i++ {
		ra, size, name, err := volume.OpenPart(a.cfg.OpenVolume, i, volume.ZIPDisk(a.cfg.Name, i))
		if err == nil {
			if err = j.Add(name, ra, size); err != nil {
				if c, ok := ra.(io.Closer); ok {
					c.Close()
				}
			}
		}
		if err != nil {
			j.Close()
			return err
		}
	}
	if err := j.Borrow(a.cfg.Name, a.ra, a.size); err != nil {
		j.Close()
		return err
	}
	a.ra, a.size, a.diskStarts = &j, j.Size(), j.Starts()
	return nil
}
