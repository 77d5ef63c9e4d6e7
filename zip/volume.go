package zip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/volume"
)

// Spanned (split) archives, APPNOTE 8: disk i < last is "name.z01" …
// (WinZip's .zipx sets use ".zx01" …; internal/volume.ZIPDisk), the last
// disk is the file holding the end record, opened by the caller. Offsets
// in the central directory are relative to the start of the disk they
// name, so the volumes are joined into one address space
// (internal/volume.Concat) and each offset gets its disk's start.

// A disk that is not there does not stop the set from opening, as 7zz
// lists and extracts what the present disks hold: it joins the set as a
// one-byte part whose reads fail with the missing-volume error
// (errs.ErrTruncated naming it), so a read that runs off the end of the
// disk before it stops there instead of going on into the disk after it.
// The offsets of the present disks stay right, since each is relative to
// its own disk. An entry whose local header is on a missing disk fails
// with that error when opened (dataOffset); the set's warning says which
// disks are missing, and it is a notice when no listed entry's bytes fall
// on one. A central directory on a missing disk cannot be read, and more
// than maxMissingDisks missing disks fail the open with the first one's
// error, as before.

// maxMissingDisks bounds the missing disks a spanned set may have and
// still open: past it the set is taken as not there at all.
const maxMissingDisks = 16

// missingDisk is a disk of the set that is not there.
type missingDisk struct {
	disk uint32
	err  error // errs.ErrTruncated and fs.ErrNotExist, naming the volume
}

// missingPart stands for a missing disk in the joined set.
type missingPart struct{ err error }

func (m missingPart) ReadAt([]byte, int64) (int, error) { return 0, m.err }

// missingErr is the error of disk i when it is missing.
func (a *Archive) missingErr(disk uint32) error {
	for _, m := range a.missing {
		if m.disk == disk {
			return m.err
		}
	}
	return nil
}

// joinVolumes opens disks 0 … lastDisk-1 beside the archive and joins them
// with the last one (a.ra), standing in for missing disks (see above);
// more disks than volume.MaxParts is errs.ErrLimit.
func (a *Archive) joinVolumes(lastDisk uint32) error {
	if a.cfg.OpenVolume == nil || a.cfg.Name == "" {
		return errs.Unsupported("spanned ZIP of %d disks opened without access to its other volumes", uint64(lastDisk)+1)
	}
	if lastDisk >= volume.MaxParts {
		return errs.Limit("spanned ZIP of %d disks: more than %d volumes", uint64(lastDisk)+1, volume.MaxParts)
	}
	// Open every disk first: a missing one stands in with the size of the
	// largest present disk before the last (zip -s makes them all one
	// size), so that the joined offsets stay what they would be; 1 byte
	// when there is none. A wrong guess only moves where entries on a
	// missing disk would lie, and those are never read.
	type disk struct {
		ra   io.ReaderAt
		size int64
		name string
	}
	disks := make([]disk, 0, lastDisk)
	closeAll := func() {
		for _, d := range disks {
			if c, ok := d.ra.(io.Closer); ok && d.name != "" {
				c.Close()
			}
		}
		a.missing = nil
	}
	guess := int64(1)
	for i := 0; i < int(lastDisk); i++ {
		ra, size, name, err := volume.OpenPart(a.cfg.OpenVolume, i, volume.ZIPDisk(a.cfg.Name, i))
		if err != nil && errors.Is(err, fs.ErrNotExist) && errors.Is(err, errs.ErrTruncated) && len(a.missing) < maxMissingDisks {
			a.missing = append(a.missing, missingDisk{disk: uint32(i), err: err})
			disks = append(disks, disk{ra: missingPart{err}})
			continue
		}
		if err != nil {
			if len(a.missing) > 0 && errors.Is(err, fs.ErrNotExist) {
				err = a.missing[0].err // past maxMissingDisks
			}
			closeAll()
			return err
		}
		disks = append(disks, disk{ra, size, name})
		guess = max(guess, size)
	}
	var j volume.Concat
	for k, d := range disks {
		var err error
		if d.name == "" {
			err = j.Borrow("", d.ra, guess)
		} else {
			if err = j.Add(d.name, d.ra, d.size); err == nil {
				disks[k].name = "" // j closes it from now on
			}
		}
		if err != nil {
			j.Close()
			closeAll()
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

// missingWarning is the warning of a set with missing disks: a notice
// when no listed entry's bytes can fall on one (its local header, a
// local name and extra field of the largest size, and its packed data).
func (a *Archive) missingWarning() error {
	names := make([]string, 0, len(a.missing))
	for _, m := range a.missing {
		names = append(names, filepath.Base(volume.ZIPDisk(a.cfg.Name, int(m.disk))))
	}
	w := fmt.Errorf("%w: missing volume %s: %w; entries stored on it cannot be read", errs.ErrTruncated, strings.Join(names, ", "), fs.ErrNotExist)
	for i := range a.files {
		f := &a.files[i]
		end := f.headerOff + localLen + 2*0xffff + int64(min(f.csize, 1<<62))
		for _, m := range a.missing {
			if lo := a.diskStarts[m.disk]; f.disk == m.disk || (f.headerOff < lo && end > lo) {
				return w
			}
		}
	}
	return errs.Notice(w)
}
