package sevenzip

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/crc32x"
	"github.com/go-unarc/unarc/internal/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Open returns a reader of entry i's content that verifies its CRC at
// EOF. Entries of one solid folder opened in order share one decoder:
// closing an entry's reader parks the decoder, positioned after it, for
// the next Open; opening an entry further on skips forward instead of
// starting over. Readers of different folders may be used concurrently.
func (a *Archive) Open(i int) (io.ReadCloser, error) {
	if i < 0 || i >= len(a.entries) {
		return nil, fmt.Errorf("7z: no entry %d", i)
	}
	e := a.entries[i]
	loc := a.locs[i]
	er := &entryReader{a: a, remain: e.Size}
	if loc.folder >= 0 && e.Size > 0 {
		fr, err := a.takeFolder(loc.folder, loc.offset, e)
		if err != nil {
			return nil, err
		}
		er.fr = fr
		er.encrypted = fr.encrypt
	}
	rc := &entryRC{er: er}
	if e.HasCRC32 {
		rc.v.ResetCRC32(er, e.CRC32, e.Size)
	} else {
		rc.v.ResetHash(er, nil, nil, e.Size)
	}
	return rc, nil
}

// takeFolder returns a decoder of folder fi positioned at off: a parked
// one at or before off when there is one, else a new one.
func (a *Archive) takeFolder(fi int, off int64, e *arc.Entry) (*folderReader, error) {
	a.mu.Lock()
	best := -1
	for j, fr := range a.idle {
		if fr.index == fi && fr.pos <= off && (best < 0 || fr.pos > a.idle[best].pos) {
			best = j
		}
	}
	var fr *folderReader
	if best >= 0 {
		fr = a.idle[best]
		a.idle = append(a.idle[:best], a.idle[best+1:]...)
	}
	a.mu.Unlock()
	if fr == nil {
		var err error
		fr, err = a.newFolderReader(a.si, fi, func() (string, error) { return a.password(e) })
		if err != nil {
			return nil, err
		}
	}
	if skip := off - fr.pos; skip > 0 {
		bufp := getBuf()
		buf := *bufp
		for skip > 0 {
			n := int64(len(buf))
			if skip < n {
				n = skip
			}
			m, err := io.ReadFull(fr, buf[:n])
			skip -= int64(m)
			if err != nil {
				putBuf(bufp)
				fr.Close()
				return nil, mapErr(fr.encrypt, errs.EOF(err, "7z folder"))
			}
		}
		putBuf(bufp)
	}
	return fr, nil
}

// park keeps fr for a later Open of the same folder.
func (a *Archive) park(fr *folderReader) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		fr.Close()
		return
	}
	var evict *folderReader
	if len(a.idle) >= maxIdle {
		evict = a.idle[0]
		a.idle = append(a.idle[:0], a.idle[1:]...)
	}
	a.idle = append(a.idle, fr)
	a.mu.Unlock()
	if evict != nil {
		evict.Close()
	}
}

// mapErr turns a checksum or data error of an encrypted folder into a
// wrong-password error: with AES, a wrong key is what makes data bad.
func mapErr(encrypted bool, err error) error {
	if err == nil || err == io.EOF || !encrypted {
		return err
	}
	if errors.Is(err, errs.ErrChecksum) || errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated) {
		return fmt.Errorf("%w (%v)", errs.ErrPassword, err)
	}
	return err
}

// entryReader reads one entry's bytes from its folder decoder.
type entryReader struct {
	a         *Archive
	fr        *folderReader
	remain    int64
	encrypted bool
	err       error
}

func (er *entryReader) Read(p []byte) (int, error) {
	if er.err != nil {
		return 0, er.err
	}
	if er.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > er.remain {
		p = p[:er.remain]
	}
	n, err := er.fr.Read(p)
	er.remain -= int64(n)
	if err == io.EOF && er.remain > 0 {
		err = errs.Truncated("7z folder ends inside an entry")
	}
	if err == io.EOF || (err == nil && er.remain == 0) {
		return n, nil
	}
	if err != nil {
		er.err = mapErr(er.encrypted, err)
		return n, er.err
	}
	return n, nil
}

// WriteTo copies the rest of the entry to w through a pooled buffer.
func (er *entryReader) WriteTo(w io.Writer) (int64, error) { return pool.Copy(w, er) }

func (er *entryReader) close() {
	if er.fr == nil {
		return
	}
	fr := er.fr
	er.fr = nil
	if er.err == nil {
		er.a.park(fr)
	} else {
		fr.Close()
	}
	if er.err == nil {
		er.err = io.ErrClosedPipe
	}
}

// entryRC verifies the entry's CRC and size (crc32x) on top of entryReader.
type entryRC struct {
	v  crc32x.Reader
	er *entryReader
}

func (rc *entryRC) Read(p []byte) (int, error) {
	n, err := rc.v.Read(p)
	return n, mapErr(rc.er.encrypted, err)
}

func (rc *entryRC) WriteTo(w io.Writer) (int64, error) {
	n, err := rc.v.WriteTo(w)
	return n, mapErr(rc.er.encrypted, err)
}

// Close releases the reader; its folder decoder is kept for the next entry.
func (rc *entryRC) Close() error {
	rc.er.close()
	return nil
}
