package zip

import (
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

// Format registers ZIP with the root package.
var Format = arc.Format{
	Name:       "zip",
	Extensions: []string{".zip", ".zipx", ".jar", ".z01", ".exe"},
	Magic:      [][]byte{{'P', 'K', 3, 4}, {'P', 'K', 5, 6}, {'P', 'K', '0', '0', 'P', 'K', 3, 4}},
	Sniff:      sniff,
	OpenIndex:  openIndex,
	Open: func(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
		a, err := Open(ra, size, conf.From(cfg))
		if err != nil {
			return nil, err
		}
		return a, nil
	},
	NewReader: func(r io.Reader, cfg *arc.Config) (arc.Reader, error) {
		z, err := NewReader(r, conf.From(cfg))
		if err != nil {
			return nil, err
		}
		return z, nil
	},
}

// sniff reports whether ra holds a ZIP archive: a local header at the
// start, or an end of central directory record in the last 64 KiB that
// points at a central directory (SFX stubs and other prepended data).
func sniff(ra io.ReaderAt, size int64) bool {
	if size < 0 {
		return false
	}
	var b [4]byte
	if size >= 4 {
		if _, err := ra.ReadAt(b[:], 0); err == nil {
			if s := le.Uint32(b[:]); s == sigLocal || s == sigSpannedMark || (s == sigEnd && size < 22+65536) {
				return true
			}
		}
	}
	d, err := findDirectory(ra, size)
	if err != nil {
		return false
	}
	start := d.end - int64(d.size)
	if d.count == 0 && d.size == 0 {
		return true
	}
	a := Archive{ra: ra, size: size}
	return a.centralAt(start) || (d.offset < uint64(size) && a.centralAt(int64(d.offset)))
}
