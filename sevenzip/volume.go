package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// multiReaderAt joins the volumes of a split archive (name.7z.001,
// name.7z.002, ...: plain byte-wise splits) into one address space.
type multiReaderAt struct {
	parts []io.ReaderAt
	start []int64 // offset of each part in the joined space
	size  int64
}

func (m *multiReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errs.Corrupt("negative offset")
	}
	total := 0
	for len(p) > 0 {
		if off >= m.size {
			return total, io.EOF
		}
		// Find the part holding off (few parts: linear is fine).
		i := len(m.start) - 1
		for m.start[i] > off {
			i--
		}
		end := m.size
		if i+1 < len(m.start) {
			end = m.start[i+1]
		}
		n := len(p)
		if int64(n) > end-off {
			n = int(end - off)
		}
		got, err := m.parts[i].ReadAt(p[:n], off-m.start[i])
		total += got
		off += int64(got)
		p = p[got:]
		if got < n {
			if err == nil || err == io.EOF {
				err = errs.Truncated("7z volume shorter than it claimed")
			}
			return total, err
		}
	}
	return total, nil
}

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
	m := &multiReaderAt{parts: []io.ReaderAt{ra}, start: []int64{0}, size: size}
	for n := 2; ; n++ {
		name := fmt.Sprintf("%s%0*d", prefix, width, n)
		r, sz, err := cfg.OpenVolume(name)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		m.parts = append(m.parts, r)
		m.start = append(m.start, m.size)
		m.size += sz
	}
	if len(m.parts) == 1 {
		return ra, size, nil
	}
	return m, m.size, nil
}
