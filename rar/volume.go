package rar

import (
	"io"

	volset "github.com/go-unarc/unarc/internal/volume"
)

// RAR volume names (.partN.rar, .rNN, old .rar/.r00/.s00) and the loop
// that opens them, with its cap and stop condition, are internal/volume's;
// the continuation of entries across volumes stays here.

// partNames reports whether the set uses ".partN.rar" names: every RAR5
// set, and RAR4 sets with the main-header flag.
func (p *headerReader) partNames() bool { return p.version == 5 || p.main.newNaming }

// firstVolumeName is the name of the first volume of the set name is in.
func (p *headerReader) firstVolumeName(name string) string {
	return volset.RARFirst(name, p.partNames())
}

// openVolumeAfter opens the volume that follows prev (n volumes are open),
// trying ".partN.rar" names for RAR4 sets that lack the naming flag. A
// volume that cannot be found is errs.ErrTruncated matching fs.ErrNotExist.
func (p *headerReader) openVolumeAfter(prev string, n int) (io.ReaderAt, int64, string, error) {
	if prev == "" || p.cfg.OpenVolume == nil {
		return volset.OpenPart(nil, n) // missing volume n+1 (no file name)
	}
	name := volset.RARNext(prev, p.partNames())
	if p.version == 4 && !p.main.newNaming {
		// Some RAR4 sets use ".partN.rar" names without the flag.
		if alt := volset.RARNext(prev, true); alt != name {
			return volset.OpenPart(p.cfg.OpenVolume, n, name, alt)
		}
	}
	return volset.OpenPart(p.cfg.OpenVolume, n, name)
}
