package engine

import "io"

// EntrySeeker is implemented by a format Archive whose entries can be
// opened at an offset without decoding everything before it: stored
// entries (plain or AES-encrypted) seek in the archive directly, and
// compressed or solid streams restart from a decoder Checkpoint.
//
// OpenAt returns a reader of entry i's content that starts at start,
// the nearest position at or before off the format can reach cheaply
// (0 when it has nothing better); the caller discards off-start bytes.
// The reader does not verify the entry's checksum (it cannot: it does
// not see the whole content); callers wanting verification read from
// offset 0 through Archive.Open. Reading past the entry's end returns
// io.EOF. It fails like Open for input that cannot be decoded. From
// start 0 the reader is Open's: it verifies the checksum at the end.
//
// StartAt says, without decoding or reading anything, where OpenAt(i,
// off) would start, so a caller holding a reader at a position between
// that start and off keeps decoding ahead instead.
type EntrySeeker interface {
	OpenAt(i int, off int64) (r io.ReadCloser, start int64, err error)
	StartAt(i int, off int64) int64
}

// CheckpointPolicy says how often a seekable decoder snapshots its state
// and how much memory the snapshots of one Archive may hold.
type CheckpointPolicy struct {
	// Interval is the output distance between two checkpoints of one
	// stream; 0 or negative takes none.
	Interval int64
	// MaxMemory bounds the bytes all checkpoints of the Archive hold
	// together; the least recently used go first.
	MaxMemory int64
}

// Checkpointer is implemented by a format Archive that can take
// decoder checkpoints while it decodes for an EntrySeeker reader.
// SetCheckpoints is called once, before any entry is opened.
type Checkpointer interface {
	SetCheckpoints(CheckpointPolicy)
}

// CheckpointStats reports what a Checkpointer holds now.
type CheckpointStats struct {
	Count   int   // checkpoints held
	Bytes   int64 // memory they hold
	Taken   int64 // checkpoints taken over the Archive's life
	Evicted int64 // checkpoints dropped to stay under MaxMemory

	// Checkpoints restored from an index: kept (Restored), found
	// consistent with the archive on first use (Verified), dropped on
	// first use because decoding from them did not give their Check
	// (Rejected).
	Restored, Verified, Rejected int64
}

// CheckpointReporter is implemented by a Checkpointer that reports its
// cache.
type CheckpointReporter interface {
	CheckpointStats() CheckpointStats
}

// Checkpoint is a snapshot of a decoder chain at a point of its output,
// self-contained so it can be kept apart from the decoder (and, later,
// serialised): Kind names the decoder and the state layout ("lzma2":
// lzma.Reader2.Checkpoint, "deflate": deflate.Reader.Checkpoint),
// Stream the stream it belongs to (the 7z folder; the ZIP entry), Out
// the offset in that stream's output, In the offset in the decoder's
// input (after decryption; in bits for "deflate", whose blocks need not
// start on a byte), and State the decoder's own bytes (window,
// probabilities, coder state). Entry and EntryOff say which entry Out
// falls in and where (-1 when in none).
//
// Check and CheckLen cross-check a checkpoint kept apart from the
// Archive that took it (in an index): Check is the CRC-32 (IEEE) of the
// checkpoint's kind, stream, offsets and State followed by the CheckLen
// bytes of the stream's output from Out, which the checkpoint must
// reproduce before it is used (CheckLen 0: not set; see
// cpcache.SumHead).
type Checkpoint struct {
	Kind     string
	Stream   int
	Out      int64
	In       int64
	Entry    int
	EntryOff int64
	State    []byte
	Check    uint32
	CheckLen int64
	// Input is the BLAKE3 of the archive bytes the state was decoded
	// from (its stream's packed input before In, and a solid run's
	// before the stream), set with Check for an index: a restored
	// checkpoint is used only once the archive's bytes give it again.
	Input [32]byte
}

// CheckSpan is the output a persisted checkpoint's Check covers (less at
// the end of its stream): enough for a window or coder state that does
// not belong to the stream to show in the bytes decoded from it.
const CheckSpan = 64 << 10

// CheckpointPersister is implemented by a Checkpointer whose checkpoints
// can be kept in an index (the root's IndexWithCheckpoints) and restored
// into the Archive reopened from it.
type CheckpointPersister interface {
	// ExportCheckpoints returns the checkpoints the Archive took (not
	// those restored and not yet verified), each with Check and CheckLen
	// set by decoding CheckLen bytes from it.
	ExportCheckpoints() ([]Checkpoint, error)
	// RestoreCheckpoints adds checkpoints read from an index to the
	// Archive's cache (within its memory bound). Each is untrusted: its
	// stream, kind, offsets, check span and state size must fit the
	// archive, or the call fails with an error matching ErrStaleIndex;
	// its State is validated by the decoder when it is used, and before
	// its first use the archive's bytes it was decoded from must give
	// its Input and decoding CheckLen bytes from it must give Check, or
	// it is dropped (and the read decodes from an earlier point).
	RestoreCheckpoints([]Checkpoint) error
}

// StreamCheckpointer is a decoder of a whole stream that snapshots its
// state where it can and pauses where it is told to: tar's compressed
// streams and the ZIP legacy decoders (the testutil harnesses drive it).
type StreamCheckpointer interface {
	io.Reader
	CanCheckpoint() bool
	CheckpointSize() int
	// Checkpoint appends the state to dst; out and in are the stream's.
	Checkpoint(dst []byte) (state []byte, out, in int64)
	// Total is the output handed out so far, from the stream's start.
	Total() int64
	// PauseAt asks the decoder to stop where it can checkpoint at or
	// after out (a no-op for those that stop there anyway).
	PauseAt(out int64)
}
