// Package bzip2 decodes bzip2 streams (the format of bzip2 0.9.5 to
// 1.0.8, lbzip2, pbzip2 and 7-Zip's BZip2 coder): ZIP method 12, the 7z
// coder 04 02 02 and .bz2 files, including concatenated streams and the
// randomised blocks of old encoders.
//
// # Use
//
//	z, err := bzip2.NewReader(r, bzip2.MaxMemory(limit), bzip2.Workers(2))
//	n, err := io.Copy(dst, z) // uses z.WriteTo
//	z.Close()                 // or z.Reset(next) to reuse the buffers
//
// # What is checked
//
// Every block's CRC and each stream's combined CRC (a mismatch is
// errs.ErrChecksum); the block size level; the symbol map, the number of
// tables and selectors, every selector and code length, over-subscribed
// Huffman codes, runs and blocks longer than the declared block size and
// the BWT origin against the block's length (errs.ErrCorrupt); input that
// ends early is errs.ErrTruncated. After a stream's end only another
// stream may follow: other trailing bytes are errs.ErrCorrupt. The first
// stream's "BZh" missing is errs.ErrFormat.
//
// # Memory
//
// The block table (4 bytes per byte of the declared block size: 3.6 MB
// at BZh9) and the buffer of the walked block (a byte per byte, plus a
// page per chain) come from internal/pool, sized by the stream's level
// and by nothing else, and are checked against MaxMemory before they are
// taken. Reset keeps them, so a warm reader allocates nothing per
// stream; Close gives them back.
//
// # Speed
//
// Symbols are decoded through a 10-bit first-level lookup table per
// Huffman table, switched once per 50-symbol group. The inverse BWT
// keeps each byte and the index of its successor in one uint32, and the
// walk through that table (a dependent load per byte, the decoder's
// main cost) runs on six chains at once: the table's cycle is cut at 64
// marked positions and the pieces are chained afterwards (walk.go). The
// final run-length stage then copies eight bytes at a time where no run
// can end, and the block CRC is computed over the output as it goes.
// With MaxMemory below FastMemory the block is walked on one chain
// straight into the caller's buffer instead.
//
// With Workers(n), n > 1, up to n blocks are decoded at once, on the
// caller's goroutine and up to n-1 more: a scanner finds candidate block
// starts (the 48-bit block magic at any bit offset), each candidate is
// decoded on its own, and a block is accepted
// only when the previous one ended exactly where it starts, so a magic
// that happens to appear inside compressed data costs time, never wrong
// output. The caller's goroutine undoes the last run-length stage into
// the output and computes each block's CRC on the way, and it decodes
// the next block itself rather than wait for another goroutine's.
// Whenever anything does not fit (a false candidate, a damaged
// block, a stream end), the reader goes on sequentially from the last
// accepted block, so data and errors are exactly those of one worker.
// At most n+1 blocks are in flight, each costing WorkerMemory; MaxMemory
// lowers n to what fits. With Shared(t), each extra goroutine decodes
// only while it holds a token of t (taken without waiting, given back
// after each block), so decoders of one extraction share its cores: a
// reader with no token free decodes sequentially, and takes up blocks
// in parallel again when tokens come free. The goroutines
// run while the reader is in a stream's blocks; they stop at the stream's
// end, at an error, on Reset and on Close (a reader dropped in mid-stream
// without Close leaves them
// waiting). A stream whose blocks are each a stream of their own (as
// pbzip2 writes them) is decoded correctly but gains little, since every
// stream end hands over to the sequential decoder.
//
// This is the implementation behind the public bzip2 package, which wraps
// it with functional options and a small surface; the format packages
// (sevenzip, tar, zip, rar) use this package directly for what only they
// need (checkpoints, Serial, the shared worker tokens and the memory
// figures).
package bzip2
