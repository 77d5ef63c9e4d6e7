package unarc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Checkpoint defaults: see WithCheckpoints.
const (
	defaultCheckpointInterval  = 16 << 20
	defaultCheckpointMemory    = 256 << 20
	seekAhead                  = 1 << 20 // decode ahead rather than look for a checkpoint
	seekHeadSize               = 512     // what http.ServeContent sniffs
	checkpointIntervalFloor    = 64 << 10
	checkpointIntervalCeilling = 1 << 40
)

var defaultCheckpoints = engine.CheckpointPolicy{Interval: defaultCheckpointInterval, MaxMemory: defaultCheckpointMemory}

// WithCheckpoints sets how often a decoder started by OpenSeekable (or
// by the fs.FS files) snapshots its state, every interval bytes of
// output, and how much memory the snapshots of the Archive may hold
// together (the least recently used are dropped beyond it), never more
// than Limits.MaxMemory (the bound of one entry's decoder memory, which
// a checkpoint copies). A seek backwards (or a ReadAt before the
// decoder's position) then restarts from the nearest checkpoint at or
// before the target instead of from the start of the entry or solid
// stream, so it costs decoding at most about interval bytes (plus the
// distance between two points where the decoder can stop, below).
// The defaults, 16 MiB and 256 MiB, keep 16 checkpoints of a 16 MiB
// dictionary, i.e. a 256 MiB solid stream; interval 0 takes none (every
// backward seek decodes from the start). The interval is raised to
// 64 KiB at least; a negative memory bound lifts it. Ordinary reading
// (OpenEntry, Extract, ReadFile) never takes checkpoints. They can be
// kept in the archive's index (IndexWithCheckpoints) for the next open.
//
// Where checkpoints are taken, and what one costs:
//
//   - LZMA2 (7z folders, ZIP XZ entries, xz tarballs and .xz files): at
//     chunk boundaries (at most 2 MiB of output apart); the window (up
//     to the dictionary: 8 MiB for 7-Zip's -mx5, 64 MiB for -mx9, never
//     more than the stream) plus 2 bytes per probability (30 KiB at
//     lc=3 lp=0). xz adds its block's running check (SHA-256 as its
//     marshalled state), the records of earlier blocks and its filters'
//     few bytes, so a resumed stream still verifies checks, index and
//     footer.
//   - LZMA (7z folders, ZIP method 14, lzip and .lzma files): wherever
//     the decoder has handed out all it decoded; the same, plus the
//     range coder (lzip: the member's CRC-32 and sizes).
//   - Deflate and Deflate64 (ZIP entries, 7z folders, gzip tarballs and
//     files): between blocks, and for gzip at member starts; 32 KiB
//     (Deflate64: 64 KiB) plus the bit offset (gzip: the member's running
//     CRC-32 and size, so its trailer is still checked).
//   - BZip2 (ZIP, 7z, bzip2 tarballs): between blocks, 6 bytes each.
//   - Zstandard (ZIP methods 93 and 20, zstd tarballs and .zst files):
//     between frames only (frames are independent; inside one,
//     klauspost's decoder keeps its state to itself), a byte plus the
//     offsets. pzstd, t2sz, the zstd seekable format and concatenated
//     .zst files write many frames; zstd -T and --rsyncable write one,
//     which gets none.
//   - PPMd (7z folders, ZIP entries, RAR 3.x/4.x PPMd blocks): between any
//     two bytes; the used part of the model (up to its memory size: 16
//     MiB for 7-Zip's -mx5 7z PPMd, 1 to 256 MiB for ZIP and RAR), so
//     only a few fit in the checkpoint memory.
//   - 7z filters: one BCJ-family or Delta filter after any of these
//     coders or over Copy (kind "lzma2+bcj", "copy+delta" and so on)
//     adds its few bytes of state (Delta: 257); a BCJ2 folder (7-Zip's
//     -mf=BCJ2, plain or under 7zAES; kind "bcj2") keeps the BCJ2
//     decoder's registers, probabilities and buffered input with a
//     checkpoint of each of its input coders, at points where all of them
//     can take one; under 7zAES each input resumes at its AES block, the
//     IV read from the archive, and no key is kept.
//   - RAR5 (solid or not, plain or AES, across volumes): between decode
//     passes with no filter pending; the window (up to twice the
//     dictionary until it wraps). A solid entry also takes one at its
//     start.
//   - RAR 3.x/4.x: between decode passes, in LZ and PPMd blocks alike;
//     the window (the dictionary rounded up to a power of two, 512 KiB to
//     4 MiB), queued filters, and once the stream has met a PPMd block,
//     the model and its range decoder. RAR 2.0 and 1.5: between decode
//     passes; their windows. Encrypted RAR 1.5/2.0 entries keep their
//     cipher's state at the 4 KiB mark of packed data before the
//     checkpoint (RAR 2.0: a key difference derived from the ciphertext;
//     RAR 1.5's keys decrypt the rest of the entry, so its checkpoints
//     are not written to an index).
//   - ZIP Shrink: between codes, its whole string table (44 KB); Reduce
//     and Implode: between symbols, the last 0.5 to 8 KiB of output.
//   - ZipCrypto entries of every kind above, stored ones included: the
//     cipher's 12 bytes of keys, sealed with a pad only the password
//     gives, so an index holds no key state in the clear and reopening
//     asks for the password again (as for WinZip AES).
//   - Compressed tarballs and compressed single files: checkpoints of
//     the whole decoded stream, shared by all its entries.
//
// Stored entries need none: ZIP store (plain or WinZip AES), 7z Copy
// (plain or AES) and RAR -m0 (plain or AES) seek in the archive
// directly, and so do the entries of a plain tar. What still restarts
// from the start of its entry or stream: single-frame Zstandard
// streams and GNU sparse tar entries (read from their header).
//
// A restored checkpoint is untrusted: it is checked against the stream
// over its first 64 KiB of output before it is used, and one that fails
// costs that much decoding, once.
func WithCheckpoints(interval, maxMemory int64) Option {
	return func(o *options) error {
		if interval > 0 {
			interval = min(max(interval, checkpointIntervalFloor), checkpointIntervalCeilling)
		}
		if maxMemory < 0 {
			maxMemory = 1<<63 - 1
		}
		o.checkpoints = engine.CheckpointPolicy{Interval: max(interval, 0), MaxMemory: maxMemory}
		return nil
	}
}

// CheckpointStats describes the decoder checkpoints an Archive holds
// (WithCheckpoints), to tune the interval and the memory bound.
type CheckpointStats struct {
	Count   int   // checkpoints held
	Bytes   int64 // memory they hold
	Taken   int64 // checkpoints taken over the Archive's life
	Evicted int64 // checkpoints dropped to stay under the memory bound
	// Checkpoints restored from an index (IndexWithCheckpoints): kept
	// (Restored), found consistent with the archive on first use
	// (Verified), dropped on first use because decoding from them did
	// not give their check (Rejected).
	Restored, Verified, Rejected int64
}

// CheckpointStats reports the checkpoints the Archive holds; zero for a
// format that takes none.
func (a *Archive) CheckpointStats() CheckpointStats {
	if r, ok := a.view.(engine.CheckpointReporter); ok {
		// The format's own record has the same fields: the root defines
		// what a user reads, the format packages' plumbing stays theirs.
		return CheckpointStats(r.CheckpointStats())
	}
	return CheckpointStats{}
}

// SeekableEntry is an entry opened for random access by
// Archive.OpenSeekable. It implements io.Reader, io.Seeker, io.ReaderAt
// and io.Closer over the entry's decoded content; the bytes are the
// same as a sequential read gives.
//
//   - Reading at or a little after the decoder's position decodes
//     ahead (skipped bytes are decoded and discarded).
//   - Reading before it, or far after it, restarts from the nearest
//     point at or before the target the format can reach: a stored
//     entry (ZIP store, 7z copy, plain or AES-encrypted) seeks in the
//     archive directly; a compressed or solid stream restarts from a
//     checkpoint (WithCheckpoints) or from the start of the entry or
//     solid stream when there is none.
//   - The first 512 bytes are kept once read, so that sniffing the
//     content and going back to the start (http.ServeContent) decodes
//     once.
//
// The stored checksum is verified only by a read that covers the whole
// entry from offset 0 to EOF through one decoder (Read from the start to
// the end without seeking backwards, or io.Copy of a fresh
// SeekableEntry); a mismatch is then returned in place of io.EOF. Reads
// that start at a checkpoint or a stored offset cannot check it.
//
// ReadAt is safe for concurrent use and does not move the Read offset;
// the calls share one decoder under a mutex, so they run one after the
// other. For parallel random access, open one SeekableEntry per
// goroutine: each has its own decoder (and window), and they share the
// Archive's checkpoints. Close waits for a read in progress; reads after
// Close fail with an error matching fs.ErrClosed.
type SeekableEntry struct {
	a *Archive
	e *Entry

	mu     sync.Mutex
	rc     io.ReadCloser // the current decoder, at rpos
	rpos   int64
	pos    int64  // the Read/Seek offset
	head   []byte // the first bytes, up to seekHeadSize, as decoded
	closed bool
}

var (
	_ io.ReadSeekCloser = (*SeekableEntry)(nil)
	_ io.ReaderAt       = (*SeekableEntry)(nil)
)

// OpenSeekable opens e (from Entries) for random access. It starts
// decoding as OpenEntry does, so errors such as a missing password are
// reported here. Close the result when done.
func (a *Archive) OpenSeekable(e *Entry) (*SeekableEntry, error) {
	if err := a.checkEntry(e); err != nil {
		return nil, err
	}
	s := &SeekableEntry{a: a, e: e}
	rc, start, err := a.openAt(e, 0)
	if err != nil {
		return nil, err
	}
	s.rc, s.rpos = rc, start
	return s, nil
}

// checkEntry reports an entry that is not one of a's.
func (a *Archive) checkEntry(e *Entry) error {
	if e == nil {
		return errors.New("unarc: nil entry")
	}
	ents := a.a.Entries()
	if e.Index < 0 || e.Index >= len(ents) || ents[e.Index] != e {
		return fmt.Errorf("unarc: entry %q does not belong to this archive", e.Name)
	}
	return nil
}

// openAt opens e at the nearest point at or before off that the format
// reaches cheaply, returning that point; from 0 it is OpenEntry.
func (a *Archive) openAt(e *Entry, off int64) (io.ReadCloser, int64, error) {
	sk, ok := a.view.(engine.EntrySeeker)
	if !ok || off == 0 {
		if ok {
			// The format may still start a decoder that takes
			// checkpoints; from 0 its reader verifies as Open's does.
			return a.openEntryAt(sk, e, 0)
		}
		rc, err := a.OpenEntry(e)
		return rc, 0, err
	}
	return a.openEntryAt(sk, e, off)
}

func (a *Archive) openEntryAt(sk engine.EntrySeeker, e *Entry, off int64) (io.ReadCloser, int64, error) {
	if err := a.acct.exhausted(); err != nil {
		return nil, 0, entryErr(e.Name, err)
	}
	type opened struct {
		rc    io.ReadCloser
		start int64
	}
	o, err := retry(a.pw, func() (opened, error) {
		rc, start, err := sk.OpenAt(e.Index, off)
		return opened{rc, start}, err
	})
	if err != nil {
		return nil, 0, entryErr(e.Name, err)
	}
	if o.start < 0 || o.start > off {
		o.rc.Close()
		return nil, 0, entryErr(e.Name, fmt.Errorf("%w: format opened entry at %d for offset %d", errs.ErrCorrupt, o.start, off))
	}
	gen := 0
	if a.pw != nil {
		gen = a.pw.generation()
	}
	er := &entryReader{name: e.Name, pw: a.pw, gen: gen}
	er.lr.reset(o.rc, o.rc, e, &a.opts.bounds, a.acct)
	er.lr.n = o.start // the declared-size bound is on the absolute offset
	return er, o.start, nil
}

// Entry returns the entry.
func (s *SeekableEntry) Entry() *Entry { return s.e }

// Size returns the entry's declared size (-1 when unknown).
func (s *SeekableEntry) Size() int64 { return s.e.Size }

func (s *SeekableEntry) closedErr() error { return entryErr(s.e.Name, fs.ErrClosed) }

// position moves the decoder to off (or to a point at or before it).
func (s *SeekableEntry) position(off int64) error {
	if s.rc != nil && off >= s.rpos && off-s.rpos <= seekAhead {
		return nil
	}
	if _, ok := s.a.view.(engine.EntrySeeker); !ok {
		if s.rc != nil && off >= s.rpos {
			return nil // nothing better than decoding ahead
		}
		return s.reopen(nil, 0)
	}
	if s.rc != nil && off >= s.rpos && s.a.view.(engine.EntrySeeker).StartAt(s.e.Index, off) <= s.rpos {
		return nil // the current decoder is at least as close
	}
	rc, start, err := s.a.openAt(s.e, off)
	if err != nil {
		return err
	}
	return s.reopen(rc, start)
}

// reopen replaces the decoder by rc at start, or by a new one at 0.
func (s *SeekableEntry) reopen(rc io.ReadCloser, start int64) error {
	if s.rc != nil {
		s.rc.Close()
		s.rc = nil
	}
	if rc == nil {
		var err error
		if rc, start, err = s.a.openAt(s.e, 0); err != nil {
			return err
		}
	}
	s.rc, s.rpos = rc, start
	return nil
}

// readAt reads at off into p (one decoder call); s.mu is held.
func (s *SeekableEntry) readAt(p []byte, off int64) (int, error) {
	if s.closed {
		return 0, s.closedErr()
	}
	if s.e.Size >= 0 && off >= s.e.Size && (s.rc == nil || off > s.rpos) {
		return 0, io.EOF
	}
	if off < int64(len(s.head)) && (s.rc == nil || off < s.rpos) {
		return copy(p, s.head[off:]), nil
	}
	if err := s.position(off); err != nil {
		return 0, err
	}
	if skip := off - s.rpos; skip > 0 {
		n, err := io.CopyN(io.Discard, s.rc, skip)
		s.rpos += n
		if err != nil {
			return 0, err
		}
	}
	n, err := s.rc.Read(p)
	if s.rpos < seekHeadSize && int64(len(s.head)) == s.rpos && n > 0 {
		if s.head == nil {
			s.head = make([]byte, 0, seekHeadSize)
		}
		s.head = append(s.head, p[:min(n, seekHeadSize-len(s.head))]...)
	}
	s.rpos += int64(n)
	return n, err
}

// Read implements io.Reader at the Seek offset.
func (s *SeekableEntry) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, s.closedErr()
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, err := s.readAt(p, s.pos)
	s.pos += int64(n)
	return n, err
}

// ReadAt implements io.ReaderAt: it fills p from off, or returns the
// reason it could not (io.EOF at the end of the entry).
func (s *SeekableEntry) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, entryErr(s.e.Name, fmt.Errorf("%w: negative offset %d", fs.ErrInvalid, off))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	total := 0
	for total < len(p) {
		n, err := s.readAt(p[total:], off+int64(total))
		total += n
		if err != nil {
			return total, err
		}
		if n == 0 {
			return total, io.ErrNoProgress
		}
	}
	return total, nil
}

// Seek implements io.Seeker; io.SeekEnd works from the declared size.
// Seeking decodes nothing; the next Read does.
func (s *SeekableEntry) Seek(offset int64, whence int) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, s.closedErr()
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += s.pos
	case io.SeekEnd:
		if s.e.Size < 0 {
			return 0, entryErr(s.e.Name, fmt.Errorf("%w: seek from the end of an entry of unknown size", fs.ErrInvalid))
		}
		offset += s.e.Size
	default:
		return 0, entryErr(s.e.Name, fmt.Errorf("%w: whence %d", fs.ErrInvalid, whence))
	}
	if offset < 0 {
		return 0, entryErr(s.e.Name, fmt.Errorf("%w: negative offset %d", fs.ErrInvalid, offset))
	}
	s.pos = offset
	return offset, nil
}

// Close releases the decoder. A second Close fails with fs.ErrClosed.
func (s *SeekableEntry) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.closedErr()
	}
	s.closed = true
	if s.rc == nil {
		return nil
	}
	err := s.rc.Close()
	s.rc = nil
	return err
}
