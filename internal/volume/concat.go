// Package volume joins byte-split archives: files cut into name.001,
// name.002, … by a splitter (7-Zip's -v, split(1)), which every format
// reads as one concatenated input.
package volume

import (
	"errors"
	"io"
	"sort"
)

// Concat presents parts as one io.ReaderAt.
type Concat struct {
	parts []io.ReaderAt
	start []int64 // offset of each part; start[len(parts)] is the total size
}

// NewConcat returns the concatenation of first (firstSize bytes).
func NewConcat(first io.ReaderAt, firstSize int64) *Concat {
	return &Concat{parts: []io.ReaderAt{first}, start: []int64{0, firstSize}}
}

// Add appends a part of size bytes.
func (c *Concat) Add(r io.ReaderAt, size int64) {
	c.parts = append(c.parts, r)
	c.start = append(c.start, c.start[len(c.start)-1]+size)
}

// Len is the number of parts.
func (c *Concat) Len() int { return len(c.parts) }

// Size is the total size.
func (c *Concat) Size() int64 { return c.start[len(c.parts)] }

// ReadAt reads across part boundaries; a part shorter than its declared
// size is io.ErrUnexpectedEOF.
func (c *Concat) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("volume: negative offset")
	}
	if off >= c.Size() {
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
