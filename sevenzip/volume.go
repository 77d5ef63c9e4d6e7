package sevenzip

import (
	"bytes"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/volume"
)

// isFirstVolume reports whether name is the first part of a byte-split
// set ("name.7z.001").
func isFirstVolume(name string) bool {
	_, _, n, ok := volume.SplitPart(name)
	return ok && n == 1
}

// joinVolumes opens the volumes after the first, if cfg names a first
// volume, and returns the joined reader (internal/volume's rules: the
// set ends at the first name that does not exist).
func joinVolumes(ra io.ReaderAt, size int64, cfg *arc.Config) (io.ReaderAt, int64, error) {
	j, err := volume.JoinSplit(ra, size, cfg.Name, cfg.OpenVolume, startsWith7z)
	if err != nil || j == nil {
		return ra, size, err
	}
	return j, j.Size(), nil
}

// startsWith7z reports whether r begins with the 7z signature: then
// ".002" is an archive of its own, not a piece of this one.
func startsWith7z(r io.ReaderAt) bool {
	var m [len(signature)]byte
	_, err := r.ReadAt(m[:], 0)
	return err == nil && bytes.Equal(m[:], signature[:])
}
