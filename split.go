package unarc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
)

// concatReaderAt presents byte-split volumes (name.001, name.002, …, as
// 7-Zip's -v switch and the split tool write them) as one io.ReaderAt.
type concatReaderAt struct {
	parts []io.ReaderAt
	start []int64 // offset of each part; start[len(parts)] = total size
}

func (c *concatReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("unarc: negative offset")
	}
	total := c.start[len(c.parts)]
	if off >= total {
		return 0, io.EOF
	}
	i := sort.Search(len(c.parts), func(i int) bool { return c.start[i+1] > off })
	n := 0
	for n < len(p) && i < len(c.parts) {
		want := min(int64(len(p)-n), c.start[i+1]-off)
		m, err := c.parts[i].ReadAt(p[n:n+int(want)], off-c.start[i])
		n += m
		off += int64(m)
		if m < int(want) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		i++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// splitVolumes recognises name.001 and opens the numbered parts that
// follow it. It returns nil when name is not the first part of such a set.
func splitVolumes(name string, first *os.File, firstSize int64) (*concatReaderAt, []io.Closer, error) {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return nil, nil, nil
	}
	ext := name[dot+1:]
	if len(ext) < 3 || strings.Trim(ext, "0") != "1" || strings.Trim(ext, "0123456789") != "" {
		return nil, nil, nil
	}
	c := &concatReaderAt{parts: []io.ReaderAt{first}, start: []int64{0, firstSize}}
	var closers []io.Closer
	for n := 2; ; n++ {
		num := strconv.Itoa(n)
		if len(num) < len(ext) {
			num = strings.Repeat("0", len(ext)-len(num)) + num
		}
		f, err := os.Open(name[:dot+1] + num)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, closers, err
		}
		closers = append(closers, f)
		st, err := f.Stat()
		if err != nil {
			return nil, closers, err
		}
		c.parts = append(c.parts, f)
		c.start = append(c.start, c.start[len(c.start)-1]+st.Size())
		if n > 100000 {
			return nil, closers, fmt.Errorf("%w: too many split volumes", ErrLimit)
		}
	}
	if len(c.parts) == 1 {
		return nil, closers, nil // a lone .001 is just a file
	}
	return c, closers, nil
}
