package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/go-unarc/unarc/arc"
	splitvol "github.com/go-unarc/unarc/internal/volume"
)

// volumeNumber splits "name.7z.001" into its prefix and number width;
// ok is false for names that are not the first volume of a split set.
func volumeNumber(name string) (prefix string, width int, ok bool) {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return "", 0, false
	}
	digits := name[dot+1:]
	if len(digits) < 3 {
		return "", 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n != 1 {
		return "", 0, false
	}
	return name[:dot+1], len(digits), true
}

// joinVolumes opens the volumes after the first, if cfg names a first
// volume, and returns the joined reader.
func joinVolumes(ra io.ReaderAt, size int64, cfg *arc.Config) (io.ReaderAt, int64, error) {
	prefix, width, ok := volumeNumber(cfg.Name)
	if !ok || cfg.OpenVolume == nil {
		return ra, size, nil
	}
	m := splitvol.NewConcat(ra, size)
	for n := 2; ; n++ {
		name := fmt.Sprintf("%s%0*d", prefix, width, n)
		r, sz, err := cfg.OpenVolume(name)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		m.Add(r, sz)
	}
	if m.Len() == 1 {
		return ra, size, nil
	}
	return m, m.Size(), nil
}
