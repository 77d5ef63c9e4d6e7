package volume

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/srcsize"
)

// OpenPart opens the part that follows the n parts already open, trying
// names in order: a later name is tried only when the earlier one does
// not exist (RAR4 sets whose files use ".partN.rar" names without the
// flag that says so). n >= MaxParts is errs.ErrLimit. When no name
// exists the error is errs.ErrTruncated naming the first, matching
// fs.ErrNotExist too; any other error from open is returned, naming the
// part, with nothing else tried.
func OpenPart(open Opener, n int, names ...string) (io.ReaderAt, int64, string, error) {
	if n >= MaxParts {
		return nil, 0, "", errs.Limit("more than %d volumes", MaxParts)
	}
	var missing error
	for _, name := range names {
		ra, size, err := open(name)
		if err == nil {
			// The opener's size is trusted as Open's is: checked the same way.
			if err := srcsize.Check(ra, size); err != nil {
				closeIf(ra)
				return nil, 0, "", fmt.Errorf("volume %s: %w", filepath.Base(name), err)
			}
			return ra, size, name, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, 0, "", fmt.Errorf("volume %s: %w", filepath.Base(name), err)
		}
		if missing == nil {
			missing = fmt.Errorf("%w: missing volume %s: %w", errs.ErrTruncated, filepath.Base(name), err)
		}
	}
	if missing == nil {
		missing = fmt.Errorf("%w: missing volume %d: %w", errs.ErrTruncated, n+1, fs.ErrNotExist)
	}
	return nil, 0, "", missing
}

// JoinSplit joins a byte-split set given its first part, name ("x.001",
// size bytes in first), opening "x.002", "x.003" … through open until a
// name does not exist. It returns nil and no error when name is not the
// first part of a set, when open is nil, when no second part exists (a
// lone .001 is just a file), or when isVolume (if not nil) reports that
// the second part starts an archive of its own: then the parts are real
// volumes (a RAR set named .001, .002) that the format follows itself.
//
// A gap (x.003 missing while x.004 exists) is errs.ErrTruncated naming the
// missing part; any error from open other than fs.ErrNotExist is returned.
// On error every part JoinSplit opened is closed; on success they are
// closed by the Concat's Close.
func JoinSplit(first io.ReaderAt, size int64, name string, open Opener, isVolume func(io.ReaderAt) bool) (*Concat, error) {
	prefix, width, n, ok := SplitPart(name)
	if !ok || n != 1 || open == nil {
		return nil, nil
	}
	c := NewConcat(first, size, name)
	fail := func(err error) (*Concat, error) {
		c.Close()
		return nil, err
	}
	for k := 2; ; k++ {
		pname := SplitName(prefix, width, k)
		ra, psize, err := open(pname)
		if errors.Is(err, fs.ErrNotExist) {
			// The end of the set, unless the part after it exists.
			if ra2, _, err2 := open(SplitName(prefix, width, k+1)); err2 == nil {
				closeIf(ra2)
				return fail(fmt.Errorf("%w: missing volume %s of a split set: %w", errs.ErrTruncated, filepath.Base(pname), err))
			}
			break
		}
		if err != nil {
			return fail(fmt.Errorf("volume %s: %w", filepath.Base(pname), err))
		}
		if k == 2 && isVolume != nil && isVolume(ra) {
			closeIf(ra)
			return nil, nil
		}
		if err := c.Add(pname, ra, psize); err != nil {
			closeIf(ra)
			return fail(err)
		}
	}
	if c.Len() == 1 {
		return nil, nil
	}
	return c, nil
}

func closeIf(ra io.ReaderAt) {
	if c, ok := ra.(io.Closer); ok {
		c.Close()
	}
}
