package unarc

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"
	"unsafe"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/internal/errs"
)

// VerifyStatus is the outcome of verifying one entry.
type VerifyStatus uint8

const (
	// VerifyOK: the entry decoded to its end and matched its stored
	// checksum (CRC32, BLAKE2sp or authentication code).
	VerifyOK VerifyStatus = iota
	// VerifyMismatch: the content does not match the stored checksum
	// (Err matches ErrChecksum).
	VerifyMismatch
	// VerifyNoChecksum: the entry decoded without error, but the archive
	// stores nothing to check it against (Entry.Verifiable is false).
	VerifyNoChecksum
	// VerifyError: decoding failed (Err says why: corrupt, truncated,
	// password, unsupported, limit …).
	VerifyError
	// VerifySkipped: the entry has no data of its own to decode (a
	// directory, a hard link, a junction, a symlink whose target the
	// header holds).
	VerifySkipped
	// VerifyStream: the entry decoded without error and has no checksum
	// of its own, but its bytes are covered by the checksum of the
	// compressed stream around the archive (a tarball's gzip CRC32, xz
	// check, zstd XXH64, bzip2 or lzip CRC32). The stream's decoder
	// checks it where a member, block or frame ends, not per entry: a
	// mismatch fails the stream (an Archive's Open, which decodes it all;
	// a Reader's Verify error after the entries before it).
	VerifyStream
)

var statusNames = [...]string{"ok", "mismatch", "no-checksum", "error", "skipped", "stream"}

// String returns "ok", "mismatch", "no-checksum", "error", "skipped" or
// "stream".
func (s VerifyStatus) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("VerifyStatus(%d)", s)
}

// MarshalText makes a status a JSON string.
func (s VerifyStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Digest selects the content digests Verify computes while decoding.
// Values combine with |.
type Digest uint8

const (
	DigestBLAKE3 Digest = 1 << iota // BLAKE3-256 (github.com/zeebo/blake3), as b3sum prints it
	DigestSHA256                    // SHA-256, as sha256sum prints it
)

// VerifyResult is what Verify reports for one entry. The digests the
// archive stores for it are its Entry's: the full CRC32 (ZIP, RAR, 7z),
// and HashKind/Hash for another (RAR5 "BLAKE2sp", all 32 bytes; RAR5 -p
// "CRC32-MAC" and "BLAKE2sp-MAC", the stored MACs; WinZip AES
// "HMAC-SHA1-80").
type VerifyResult struct {
	Entry  *Entry
	Status VerifyStatus
	// Err is the entry's error (an *EntryError) for VerifyMismatch and
	// VerifyError, nil otherwise.
	Err error
	// Size is the number of content bytes decoded.
	Size int64
	// Content digests computed while decoding, when asked for
	// (WithDigests) and the entry decoded to its end (Status OK or
	// NoChecksum); nil otherwise.
	BLAKE3 []byte
	SHA256 []byte
}

// VerifyOption configures one Verify or VerifyFunc call (of an Archive
// or a Reader). An option given a value that cannot be meant (a nil
// callback, an unknown Digest) makes the call fail with an error
// matching ErrInvalidOption before anything is decoded.
type VerifyOption func(*verifyConfig) error

type verifyConfig struct {
	digests Digest
	filter  func(*Entry) bool
	prog    func(e *Entry, n int)
	stream  bool // the format's stream checksum covers every entry
}

// streamChecked reports whether a format Archive or Reader says a
// checksum of its compressed stream covers every entry (tar's
// StreamCheck).
func streamChecked(f any) bool {
	sc, ok := f.(interface{ StreamCheck() string })
	return ok && sc.StreamCheck() != ""
}

// WithDigests makes Verify compute content digests of every decoded
// entry in the same pass as the decoding (no second read): the
// VerifyResult's BLAKE3 and SHA256. d = 0 computes none.
func WithDigests(d Digest) VerifyOption {
	return func(c *verifyConfig) error {
		if d&^(DigestBLAKE3|DigestSHA256) != 0 {
			return invalid("WithDigests(%#x): no such digest", uint8(d))
		}
		c.digests |= d
		return nil
	}
}

// VerifyFilter restricts Verify to the entries fn accepts; the others
// are neither decoded nor reported (in a solid block, the entries before
// a selected one are still decoded, unreported, to reach it).
func VerifyFilter(fn func(*Entry) bool) VerifyOption {
	return func(c *verifyConfig) error {
		if fn == nil {
			return invalid("VerifyFilter(nil)")
		}
		c.filter = fn
		return nil
	}
}

// VerifyProgress calls fn as content is decoded: n more bytes of entry
// e (from the decoding goroutine; keep it cheap).
func VerifyProgress(fn func(e *Entry, n int)) VerifyOption {
	return func(c *verifyConfig) error {
		if fn == nil {
			return invalid("VerifyProgress(nil)")
		}
		c.prog = fn
		return nil
	}
}

func newVerifyConfig(opts []VerifyOption) (*verifyConfig, error) {
	c := &verifyConfig{}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// hasData reports whether verifying e reads data of its own.
func hasData(e *Entry) bool {
	return !(e.IsDir() || e.Link == LinkHardlink || e.Link == LinkJunction ||
		(e.Link == LinkSymlink && e.LinkTarget != ""))
}

// Verify decodes every entry (or those VerifyFilter selects) and reports
// one VerifyResult per entry in archive order: OK, checksum mismatch, no
// stored checksum, error or skipped, with the stored digests and, with
// WithDigests, content digests computed while decoding. Entry failures
// are results, not errors: the error is non-nil only when ctx is
// cancelled (ctx.Err(), with the results so far) or the selected
// entries declare more output than Limits.MaxTotalSize allows (ErrLimit,
// before anything is decoded). To act on each result as it comes (a
// long run), use VerifyFunc.
//
// Independent units (ZIP entries, non-solid RAR entries and solid runs,
// 7z folders) are decoded on up to WithWorkers goroutines, as in
// Extract; results and the limits come in archive
// order whatever the number of workers. VerifyProgress is called from
// the decoding goroutines.
//
// The results it returns are kept in memory until it returns, and count
// against MaxHeaderMemory (beside the entries the Archive holds): past
// it Verify stops with ErrLimit and the results so far. VerifyFunc
// keeps none, for archives of any number of entries.
func (a *Archive) Verify(ctx context.Context, opts ...VerifyOption) ([]VerifyResult, error) {
	c, err := newVerifyConfig(opts)
	if err != nil {
		return nil, err
	}
	k := keeper{max: a.opts.bounds.MaxHeaderMemory}
	err = a.verify(ctx, c, k.keep)
	return k.out, err
}

// VerifyFunc is Verify that keeps no results: fn gets each one as its
// entry is done, in archive order (the result is reused once fn
// returns; copy what you keep). An error from fn stops VerifyFunc, which
// returns it; otherwise the error is Verify's.
func (a *Archive) VerifyFunc(ctx context.Context, fn func(*VerifyResult) error, opts ...VerifyOption) error {
	c, err := newVerifyConfig(opts)
	if err != nil {
		return err
	}
	return a.verify(ctx, c, fn)
}

// keeper collects results for the slice form of Verify, counting them
// against MaxHeaderMemory.
type keeper struct {
	out     []VerifyResult
	mem     int64
	max     int64
	entries bool // the entries are kept only by the results (a Reader's)
}

func (k *keeper) keep(r *VerifyResult) error {
	if k.mem += resultCost(r, k.entries); k.mem > k.max {
		return errs.Limit("Verify's %d results need more than MaxHeaderMemory (%d bytes); VerifyFunc keeps none", len(k.out)+1, k.max)
	}
	k.out = append(k.out, *r)
	return nil
}

// resultCost is what keeping r costs: the result and its digests, and
// with entry the Entry it points to, its strings and its tar header
// (nothing else keeps a Reader's entries).
func resultCost(r *VerifyResult, entry bool) int64 {
	n := int64(unsafe.Sizeof(*r)) + int64(len(r.BLAKE3)+len(r.SHA256))
	if e := r.Entry; entry && e != nil {
		n += int64(unsafe.Sizeof(*e)) + int64(len(e.Name)+len(e.LinkTarget)+len(e.Hash))
		if h, ok := e.Sys.(*tar.Header); ok {
			n += int64(unsafe.Sizeof(*h)) + int64(len(h.Name)+len(h.Linkname)+len(h.Uname)+len(h.Gname))
			for k, v := range h.PAXRecords {
				n += int64(len(k)+len(v)) * 2 // and their copy in Xattrs
			}
		}
	}
	return n
}

// verify runs Verify, handing each result to keep; an error from it
// stops the run.
func (a *Archive) verify(ctx context.Context, c *verifyConfig, keep func(*VerifyResult) error) error {
	c.stream = streamChecked(a.a)
	ents := a.Entries()
	if total, _ := declaredTotal(ents, c.filter, hasData); total > 0 {
		if err := a.checkDeclaredTotal(total); err != nil {
			return err
		}
	}
	res := make([]VerifyResult, len(ents))
	var free verifiers
	var stop error
	emit := func(r *VerifyResult) bool {
		if stop = c.emit(keep, r); stop != nil {
			return false
		}
		return true
	}
	next := 0 // entries before next have been reported (or were not selected)
	skipTo := func(k int) bool {
		for ; next < k; next++ {
			e := ents[next]
			if hasData(e) || c.filter != nil && !c.filter(e) {
				continue
			}
			var r VerifyResult
			skippedResult(e, &r)
			if !emit(&r) {
				return false
			}
		}
		return true
	}
	decode := func(wctx context.Context, k int, r io.Reader) error {
		v := free.get(wctx, c)
		v.entry(ents[k], r, &res[k])
		free.put(v)
		return res[k].Err
	}
	done := func(k int, err error) bool {
		if !skipTo(k) {
			return false
		}
		next = k + 1
		r := &res[k]
		if err != nil && ctx.Err() != nil {
			return false // cancelled inside the entry: no verdict on it
		}
		if err != nil && err != r.Err {
			// Opening failed, or a limit was spent (before or by this
			// entry) when charged in its turn.
			failedResult(ents[k], err, r.Size, r)
		}
		ok := emit(r)
		*r = VerifyResult{}
		return ok
	}
	err := a.decodeEntries(ctx, c.filter, decode, done)
	if err == nil && stop == nil {
		skipTo(len(ents))
	}
	if stop != nil {
		return stop
	}
	if err == nil {
		err = incomplete(a.a) // a cut archive: its entries were verified
	}
	return err
}

// emit hands r to keep.
func (c *verifyConfig) emit(keep func(*VerifyResult) error, r *VerifyResult) error {
	if keep != nil {
		return keep(r)
	}
	return nil
}

// verifiers keeps the hashers of a Verify run's workers for reuse.
type verifiers struct {
	mu   sync.Mutex
	free []*verifier
}

func (l *verifiers) get(ctx context.Context, c *verifyConfig) *verifier {
	l.mu.Lock()
	var v *verifier
	if n := len(l.free); n > 0 {
		v = l.free[n-1]
		l.free = l.free[:n-1]
	}
	l.mu.Unlock()
	if v == nil {
		v = newVerifier(ctx, c)
	}
	v.w.ctx = ctx // the worker's context: it stops with the run
	return v
}

func (l *verifiers) put(v *verifier) {
	l.mu.Lock()
	l.free = append(l.free, v)
	l.mu.Unlock()
}

// Verify is Archive.Verify for a stream: it reads the rest of the
// archive, entry by entry. An error that ends the stream (not one
// entry's) is returned after the results before it; so is an entry
// whose declared size would pass what MaxTotalSize leaves (ErrLimit,
// before it is decoded). The results and their entries count against
// MaxHeaderMemory (ErrLimit past it); VerifyFunc keeps none.
func (r *Reader) Verify(ctx context.Context, opts ...VerifyOption) ([]VerifyResult, error) {
	c, err := newVerifyConfig(opts)
	if err != nil {
		return nil, err
	}
	k := keeper{max: r.opts.bounds.MaxHeaderMemory, entries: true}
	err = r.verify(ctx, c, k.keep)
	return k.out, err
}

// VerifyFunc is Archive.VerifyFunc for a stream: Verify that keeps no
// results (nor the entries they name).
func (r *Reader) VerifyFunc(ctx context.Context, fn func(*VerifyResult) error, opts ...VerifyOption) error {
	c, err := newVerifyConfig(opts)
	if err != nil {
		return err
	}
	return r.verify(ctx, c, fn)
}

func (r *Reader) verify(ctx context.Context, c *verifyConfig, keep func(*VerifyResult) error) error {
	c.stream = streamChecked(r.r)
	v := newVerifier(ctx, c)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, err := r.Next()
		if err == io.EOF {
			// A stream format with a trailing index (ZIP's central
			// directory): read it, so that a directory that disagrees
			// with the entries, or a stream cut inside its end records,
			// fails Verify as it fails Extract.
			if dr, ok := r.r.(directoryReader); ok {
				if _, err := dr.Directory(); err != nil {
					return archiveErr(err)
				}
			}
			return nil
		}
		if err != nil {
			return err
		}
		if c.filter != nil && !c.filter(e) {
			continue
		}
		if e.Size >= 0 && hasData(e) {
			// Judged before decoding, as Archive.Verify judges the total.
			if err := r.checkDeclaredEntry(e); err != nil {
				return &EntryError{Entry: e.Name, Err: err}
			}
		}
		res := VerifyResult{}
		if hasData(e) {
			v.entry(e, r, &res)
		} else {
			skippedResult(e, &res)
		}
		if res.Err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := c.emit(keep, &res); err != nil {
			return err
		}
	}
}

// verifier holds the reusable hashers of one Verify run.
type verifier struct {
	ctx    context.Context
	stream bool // verifyConfig.stream
	b3     *blake3.Hasher
	sha    hash.Hash
	w      digestWriter
}

func newVerifier(ctx context.Context, c *verifyConfig) *verifier {
	d, prog := c.digests, c.prog
	v := &verifier{ctx: ctx, stream: c.stream}
	if d&DigestBLAKE3 != 0 {
		v.b3 = blake3.New()
	}
	if d&DigestSHA256 != 0 {
		v.sha = sha256.New()
	}
	v.w = digestWriter{ctx: ctx, b3: v.b3, sha: v.sha, prog: prog}
	return v
}

func stored(e *Entry, res *VerifyResult) {
	res.Entry = e
}

func skippedResult(e *Entry, res *VerifyResult) {
	stored(e, res)
	res.Status = VerifySkipped
}

func failedResult(e *Entry, err error, n int64, res *VerifyResult) {
	stored(e, res)
	res.Size = n
	res.Err = entryErr(e.Name, err)
	res.Status = VerifyError
	if errors.Is(err, ErrChecksum) {
		res.Status = VerifyMismatch
	}
}

// entry decodes r (entry e's content) to its end into the hashers.
func (v *verifier) entry(e *Entry, r io.Reader, res *VerifyResult) {
	if v.b3 != nil {
		v.b3.Reset()
	}
	if v.sha != nil {
		v.sha.Reset()
	}
	v.w.n, v.w.e = 0, e
	// io.Copy uses the decoder's WriteTo: the hashers see the window's
	// large runs, not small reads.
	n, err := io.Copy(&v.w, r)
	if err != nil {
		failedResult(e, err, n, res)
		return
	}
	stored(e, res)
	res.Size = n
	res.Status = VerifyOK
	if !e.Verifiable() {
		res.Status = VerifyNoChecksum
		if v.stream {
			res.Status = VerifyStream
		}
	}
	if v.b3 != nil {
		res.BLAKE3 = v.b3.Sum(nil)
	}
	if v.sha != nil {
		res.SHA256 = v.sha.Sum(nil)
	}
}

// digestWriter feeds the content to the hashers and stops on cancel.
type digestWriter struct {
	ctx  context.Context
	b3   *blake3.Hasher
	sha  hash.Hash
	n    int64
	e    *Entry
	prog func(*Entry, int)
}

func (w *digestWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	if w.b3 != nil {
		w.b3.Write(p)
	}
	if w.sha != nil {
		w.sha.Write(p)
	}
	w.n += int64(len(p))
	if w.prog != nil {
		w.prog(w.e, len(p))
	}
	return len(p), nil
}
