package unarc

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Reader reads an archive forward-only from a plain io.Reader (a pipe, a
// network stream): Next moves to the next entry, Read reads its content.
// Formats that keep their index at the end (7z) cannot be read this way;
// use Open for them.
type Reader struct {
	r      arc.Reader
	format string
	opts   *options
	pw     *passwords
	cur    *Entry
	lr     limitReader
	acct   *account
	count  int64 // entries returned, against MaxEntries
	err    error
	buf    *bufio.Reader // from bufPool, returned by Close
}

// bufPool keeps the stream buffers, so a Reader per archive costs no
// 64 KiB allocation once warm.
var bufPool = pool.Of[bufio.Reader]{New: func() *bufio.Reader { return bufio.NewReaderSize(nil, readerBufSize) }}

// readerBufSize is the stream buffer: large enough that format readers
// can peek whole headers and the SFX scan moves in big steps.
const readerBufSize = 64 << 10

// NewReader detects the format of the stream r from its content (skipping
// an SFX stub or other prepended data) and returns a forward-only Reader.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	gate := newOpenGate(o.ctx)
	if err := gate.err(); err != nil {
		return nil, err
	}
	rd, err := newReader(r, o, gate)
	cancelled, err := gate.close(err)
	if cancelled && rd != nil {
		rd.Close()
		rd = nil
	}
	return rd, err
}

// newReader is NewReader with the options built and the reads of the
// stream (and of its volumes) passing gate.
func newReader(r io.Reader, o *options, gate *openGate) (*Reader, error) {
	// The input is counted under the buffer (for MaxRatio), so even a
	// caller's own bufio.Reader is read through a pooled one.
	acct := newAccount(&o.bounds)
	pooled := bufPool.Get()
	pooled.Reset(&countingReader{r: gate.reader(r), n: &acct.consumed})
	br := pooled
	release := func() {
		if pooled != nil {
			pooled.Reset(nil)
			bufPool.Put(pooled)
		}
	}
	f, err := detectStream(br)
	if err != nil {
		release()
		return nil, err
	}
	if f.NewReader == nil {
		release()
		return nil, fmt.Errorf("%w: a %s archive keeps its index at the end and needs random access: open it from a file (Open), not a stream", errs.ErrUnsupported, f.Name)
	}
	cfg, pw := o.config()
	if o.volOpen != nil {
		// A multi-volume set read forward: the format opens the next
		// volumes (and the first, given a later one) by name, and its
		// Reader closes them.
		cfg.Name, cfg.OpenVolume = o.volName, o.volOpen
		gate.volumes(cfg)
	}
	fr, err := f.NewReader(br, cfg)
	if err != nil {
		release()
		return nil, archiveErr(err)
	}
	return &Reader{r: fr, format: formatName(fr, f), opts: o, pw: pw, buf: pooled, acct: acct}, nil
}

// Format names the detected format.
func (r *Reader) Format() string { return r.format }

// Next advances to the next entry, skipping the rest of the current one.
// It returns io.EOF after the last entry.
func (r *Reader) Next() (*Entry, error) {
	if r.err != nil {
		return nil, r.err
	}
	if err := r.acct.exhausted(); err != nil {
		// The stream's output budget is spent: going on would only decode
		// (or skip-decode) more of what the limit refused.
		r.err, r.cur = err, nil
		return nil, err
	}
	e, err := r.r.Next()
	if err != nil {
		if err != io.EOF {
			if errs.IsIncomplete(err) {
				// A cut after the entry (in the end header): the
				// archive's, as Archive.Extract and Verify report it.
				err = archiveErr(err)
			} else if r.cur != nil {
				err = entryErr(r.cur.Name, err)
			}
			r.err = err
		}
		r.cur = nil
		return nil, err
	}
	if r.count++; r.count > r.opts.bounds.MaxEntries {
		r.err = errs.Limit("more than MaxEntries (%d) entries in the stream", r.opts.bounds.MaxEntries)
		r.cur = nil
		return nil, r.err
	}
	r.cur = e
	r.lr.reset(r.r, nil, e, &r.opts.bounds, r.acct)
	return e, nil
}

// Read reads the current entry's content. At its end the stored checksum
// is verified: a mismatch is returned as an error matching ErrChecksum.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		return 0, io.EOF
	}
	n, err := r.lr.Read(p)
	if err != nil && err != io.EOF {
		err = r.fail(err)
	}
	return n, err
}

// WriteTo writes the rest of the current entry to w.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	if r.cur == nil {
		return 0, nil
	}
	n, err := r.lr.WriteTo(w)
	if err != nil {
		err = r.fail(err)
	}
	return n, err
}

// Close releases the Reader's decoders and buffer. It does not close the
// source. The Reader cannot be used afterwards.
func (r *Reader) Close() error {
	if r.r == nil {
		return nil
	}
	err := r.r.Close()
	r.r = nil
	r.cur = nil
	r.err = errClosed
	if r.buf != nil {
		r.buf.Reset(nil)
		bufPool.Put(r.buf)
		r.buf = nil
	}
	return err
}

var errClosed = errors.New("unarc: Reader closed")

// Warnings returns the stream's archive-level warnings so far (see
// Archive.Warnings); call it after Next returned io.EOF for the full list.
func (r *Reader) Warnings() []error {
	if r.r == nil {
		return nil
	}
	return formatWarnings(r.r)
}

// fail names the current entry in err; a wrong password found at the
// data's end (RAR 2.9) makes the next entry that needs one ask again.
func (r *Reader) fail(err error) error {
	if r.pw != nil && errors.Is(err, ErrPassword) {
		r.pw.forget(r.pw.generation())
	}
	return entryErr(r.cur.Name, err)
}
