package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
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
	if a.closed.Load() {
		return nil, errClosed
	}
	e := a.entries[i]
	er := &entryReader{a: a, remain: e.Size}
	if k := a.stream[i]; k >= 0 && e.Size > 0 {
		fr, err := a.takeFolder(int(a.streamFolder[k]), a.streamOff[k], e)
		if err != nil {
			return nil, err
		}
		er.fr = fr
		er.encrypted = fr.encrypt
	}
	return a.entryRC(i, er), nil
}

// entryRC wraps er, which reads entry i from its start, with the CRC
// check (and a symlink's target capture).
func (a *Archive) entryRC(i int, er *entryReader) io.ReadCloser {
	e := a.entries[i]
	rc := &entryRC{er: er}
	if e.Link == arc.LinkSymlink && e.Size <= meta.MaxLinkTarget {
		rc.a, rc.index, rc.link = a, i, make([]byte, 0, e.Size)
	}
	if e.HasCRC32 {
		rc.v.ResetCRC32(er, e.CRC32, e.Size)
	} else {
		rc.v.ResetHash(er, nil, nil, e.Size)
	}
	return rc
}

// setLink records entry i's symlink target once read and verified.
func (a *Archive) setLink(i int, target []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.linkDone == nil {
		a.linkDone = make(map[int]bool)
	}
	if !a.linkDone[i] {
		a.entries[i].LinkTarget = string(target)
		a.linkDone[i] = true
	}
}

// LinkTarget returns the target of entry i when it is a symlink ("" for
// other entries). 7z stores a symlink's target as the entry's content,
// so Open never decodes it (listing an archive must not decode folders):
// Entry.LinkTarget stays "" until the entry has been read to the end
// once (through Open, or through this method), and is filled then.
// LinkTarget decodes the entry if that has not happened yet; reading
// the entries of a solid folder in order fills every target on the way
// without decoding the folder twice. The field is written under the
// Archive's lock: code that reads Entry.LinkTarget of a symlink while
// another goroutine may be resolving it should call this method instead.
func (a *Archive) LinkTarget(i int) (string, error) {
	if i < 0 || i >= len(a.entries) {
		return "", fmt.Errorf("7z: no entry %d", i)
	}
	e := a.entries[i]
	if e.Link != arc.LinkSymlink {
		return e.LinkTarget, nil
	}
	a.mu.Lock()
	done, t := a.linkDone[i], e.LinkTarget
	a.mu.Unlock()
	if done {
		return t, nil
	}
	if e.Size > meta.MaxLinkTarget {
		return "", errs.Limit("7z: symlink target of %d bytes, above %d", e.Size, meta.MaxLinkTarget)
	}
	rc, err := a.Open(i)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return e.LinkTarget, nil
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
		fr, err = a.newFolderReader(a.si, fi, e, a.entryWorkerCount())
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
				enc := fr.encrypt // fr is back in the pool after Close
				fr.Close()
				return nil, mapErr(enc, errs.EOF(err, "7z folder"))
			}
		}
		putBuf(bufp)
	}
	return fr, nil
}

// park keeps fr for a later Open of the same folder. A decoder at the
// end of its folder has nothing left to give and is closed instead: its
// window or model would stay allocated beside the next folder's.
func (a *Archive) park(fr *folderReader) {
	if fr.pos >= a.si.folders[fr.index].size() {
		fr.Close()
		return
	}
	a.mu.Lock()
	if a.closed.Load() {
		a.mu.Unlock()
		fr.Close()
		return
	}
	// One parked decoder per folder: another of the same folder (left by
	// readers closed out of order) would pin a second window until the
	// Archive is closed; the newest replaces it.
	var evict *folderReader
	for j, old := range a.idle {
		if old.index == fr.index {
			evict = old
			a.idle = append(a.idle[:j], a.idle[j+1:]...)
			break
		}
	}
	if evict == nil && len(a.idle) >= maxIdle {
		evict = a.idle[0]
		a.idle = append(a.idle[:0], a.idle[1:]...)
	}
	a.idle = append(a.idle, fr)
	a.mu.Unlock()
	if evict != nil {
		evict.Close()
	}
}

// mapErr applies the wrong-password rule to an error of an encrypted
// folder: a CRC mismatch, corrupt data or a decoder running out of input
// there is reported as errs.ErrPassword. Pack streams are checked to lie
// inside the archive at Open, so inside an AES folder these almost
// always mean the key is wrong (decrypted garbage), whether or not the
// entry has a CRC to tell; a wrong password is what 7-Zip reports for
// them too. Errors of other kinds (limits, unsupported methods, closed
// archives, I/O) pass unchanged.
func mapErr(encrypted bool, err error) error {
	if err == nil || err == io.EOF || !encrypted {
		return err
	}
	if errors.Is(err, errs.ErrPassword) {
		return err
	}
	if errors.Is(err, errs.ErrChecksum) || errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated) {
		return fmt.Errorf("%w: encrypted 7z data does not decode (%s)", errs.ErrPassword, detail(err))
	}
	return err
}

// detail returns err's message without the sentinel's own text, for
// wrapping the cause under another sentinel.
func detail(err error) string {
	msg := err.Error()
	for _, s := range []error{errs.ErrChecksum, errs.ErrCorrupt, errs.ErrTruncated} {
		if p := s.Error() + ": "; strings.HasPrefix(msg, p) {
			return msg[len(p):]
		}
	}
	return msg
}

// errReaderClosed is what an entry reader returns after its Close.
var errReaderClosed = fmt.Errorf("7z: entry reader closed: %w", fs.ErrClosed)

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
	if er.a.closed.Load() {
		er.err = errClosed
		if fr := er.fr; fr != nil {
			er.fr = nil
			fr.Close()
		}
		return 0, er.err
	}
	if er.remain <= 0 {
		return 0, io.EOF
	}
	if er.fr == nil {
		return 0, errReaderClosed
	}
	if int64(len(p)) > er.remain {
		p = p[:er.remain]
	}
	n, err := er.fr.Read(p)
	er.remain -= int64(n)
	if err == io.EOF && er.remain > 0 {
		err = errs.Truncated("7z folder ends inside an entry")
	}
	if er.remain == 0 && (err == nil || err == io.EOF) {
		// The entry is complete: hand the decoder, positioned at the next
		// entry, back now rather than at Close, so that opening the next
		// entry of a solid folder reuses its window even when this reader
		// is closed late (a deferred Close in a loop) instead of starting
		// a second decoder with a window of its own.
		fr := er.fr
		er.fr = nil
		er.a.park(fr)
		return n, nil
	}
	if err == io.EOF {
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
		er.err = errReaderClosed
	}
}

// entryRC verifies the entry's CRC and size (crc32x) on top of entryReader.
// For a symlink it also keeps the content, which is the link's target,
// and records it in the Entry once it has been read and verified.
type entryRC struct {
	v     crc32x.Reader
	er    *entryReader
	a     *Archive // set for symlinks
	index int
	link  []byte
}

func (rc *entryRC) Read(p []byte) (int, error) {
	n, err := rc.v.Read(p)
	if rc.a != nil {
		rc.link = append(rc.link, p[:n]...)
		if err == io.EOF {
			rc.a.setLink(rc.index, rc.link)
			rc.a = nil
		}
	}
	return n, mapErr(rc.er.encrypted, err)
}

func (rc *entryRC) WriteTo(w io.Writer) (int64, error) {
	if rc.a != nil {
		return pool.Copy(w, rc) // through Read, which keeps the target
	}
	n, err := rc.v.WriteTo(w)
	return n, mapErr(rc.er.encrypted, err)
}

// Close releases the reader; its folder decoder is kept for the next entry.
func (rc *entryRC) Close() error {
	rc.er.close()
	return nil
}
