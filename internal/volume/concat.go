// Package volume holds the one set of multi-volume rules every format and
// both APIs use: the names of the parts (byte-split name.001 sets, RAR
// .partN.rar and .rNN volumes, ZIP .zNN disks), the loop that opens them
// with one cap (MaxParts) and one stop condition, and Concat, which
// presents an ordered list of parts as one io.ReaderAt.
//
// The stop condition: a set ends at the first name the opener reports as
// fs.ErrNotExist; any other error from the opener is returned as it is,
// never taken for the end. A name that does not exist while the one after
// it does is a gap, errs.ErrTruncated naming the missing part.
package volume

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/go-unarc/unarc/internal/errs"
)

// MaxParts bounds the parts of one set: byte-split parts, ZIP disks and
// RAR volumes alike. More is errs.ErrLimit. (RAR's own numbering ends at
// .part99999 in practice, and a ZIP disk number is 16 or 32 bits.)
const MaxParts = 100000

// Opener opens a part by name with its size. A part that does not exist
// is an error matching fs.ErrNotExist (as arc.VolumeOpener promises).
type Opener = func(name string) (io.ReaderAt, int64, error)

// Concat presents an ordered list of parts as one io.ReaderAt. The zero
// value is an empty set, ready for Add.
type Concat struct {
	parts []part
	start []int64 // offset of each part; start[len(parts)] is the total size
}

type part struct {
	ra     io.ReaderAt
	name   string
	opened bool // opened by this package: closed by Close
}

// NewConcat returns the concatenation of first (firstSize bytes), named
// name ("" when it has none); the caller keeps ownership of first.
func NewConcat(first io.ReaderAt, firstSize int64, name string) *Concat {
	return &Concat{parts: []part{{ra: first, name: name}}, start: []int64{0, firstSize}}
}

// Add appends the part name of size bytes, which Close closes if it is
// an io.Closer. More than MaxParts parts, a negative size or a total
// past 2^63-1 is errs.ErrLimit (nothing is added).
func (c *Concat) Add(name string, r io.ReaderAt, size int64) error {
	return c.add(name, r, size, true)
}

// Borrow is Add for a part the caller keeps ownership of (Close leaves
// it open).
func (c *Concat) Borrow(name string, r io.ReaderAt, size int64) error {
	return c.add(name, r, size, false)
}

func (c *Concat) add(name string, r io.ReaderAt, size int64, owned bool) error {
	if len(c.parts) >= MaxParts {
		return errs.Limit("more than %d volumes", MaxParts)
	}
	total := c.Size()
	if size < 0 || total+size < total {
		return errs.Limit("volume %s makes the set larger than 2^63-1 bytes", filepath.Base(name))
	}
	if c.start == nil {
		c.start = []int64{0}
	}
	c.parts = append(c.parts, part{ra: r, name: name, opened: owned})
	c.start = append(c.start, total+size)
	return nil
}

// Len is the number of parts.
func (c *Concat) Len() int { return len(c.parts) }

// Size is the total size.
func (c *Concat) Size() int64 {
	if len(c.parts) == 0 {
		return 0
	}
	return c.start[len(c.parts)]
}

// Starts returns the offset at which each part begins, followed by the
// total size (Len()+1 values; nil for an empty set). The slice belongs to
// c: do not modify it.
func (c *Concat) Starts() []int64 { return c.start }

// Close closes the parts Add was given that are io.Closers (not the
// first, which the caller owns) and returns the first error.
func (c *Concat) Close() error {
	var first error
	for i := range c.parts {
		if cl, ok := c.parts[i].ra.(io.Closer); ok && c.parts[i].opened {
			if err := cl.Close(); err != nil && first == nil {
				first = err
			}
		}
		c.parts[i].opened = false
	}
	return first
}

// find returns the part holding offset off (0 <= off < Size()).
func (c *Concat) find(off int64) int {
	lo, hi := 0, len(c.parts)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.start[m+1] > off {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// ReadAt reads across part boundaries. A part shorter than its declared
// size is errs.ErrTruncated naming the part.
func (c *Concat) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errs.Corrupt("volume: negative offset %d", off)
	}
	if off >= c.Size() {
		return 0, io.EOF
	}
	n := 0
	for i := c.find(off); n < len(p) && i < len(c.parts); i++ {
		want := min(int64(len(p)-n), c.start[i+1]-off)
		m, err := c.parts[i].ra.ReadAt(p[n:n+int(want)], off-c.start[i])
		n += m
		off += int64(m)
		if m < int(want) {
			if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
				err = errs.Truncated(c.partName(i) + " is shorter than its size")
			}
			return n, err
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// partName names part i in errors: its base name, or its number.
func (c *Concat) partName(i int) string {
	if c.parts[i].name != "" {
		return "volume " + filepath.Base(c.parts[i].name)
	}
	return fmt.Sprintf("volume %d", i+1)
}
