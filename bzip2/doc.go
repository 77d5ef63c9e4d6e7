// Package bzip2 reads bzip2 data in pure Go: .bz2 files and tar.bz2,
// ZIP method 12 and 7z's BZip2 coder, as bzip2 0.9.5 to 1.0.8, lbzip2,
// pbzip2 and 7-Zip write them, concatenated streams and the randomised
// blocks of old encoders included. The package decodes; it has no
// encoder.
//
// # Streaming and concurrency
//
// A Reader decodes forward from any io.Reader. By default it decodes on
// the caller's goroutine; with WithWorkers(n) up to n blocks are decoded
// at once on the caller's goroutine and n-1 more: candidate block starts
// are found by their 48-bit magic and a block is accepted only where the
// previous one ended, so the output and the errors are exactly those of
// one worker. The goroutines stop at a stream's end, at an error, on
// Reset and on Close (a reader dropped mid-stream without Close leaves
// them waiting). A Reader is not safe for concurrent use.
//
// # Memory
//
// The block table is 4 bytes per byte of the block size the stream
// declares (3.6 MB at BZh9), plus about 112 KiB of input buffer and
// tables, and for the fast path a buffer of the walked block (about
// another 0.9 MB at BZh9); each extra block in flight with WithWorkers
// costs about 9.2 MB at BZh9. Everything comes from pools, is checked
// against WithMaxMemory before it is taken, is kept by Reset and given
// back by Close.
//
// # Errors
//
// Every block's CRC and each stream's combined CRC are checked. Errors
// match the unarc sentinels with errors.Is: data that does not start
// with "BZh" unarc.ErrFormat; a CRC that does not match
// unarc.ErrChecksum; a damaged block (symbol map, tables, selectors,
// code lengths, runs past the block size, the BWT origin) or bytes after
// a stream that are not another stream unarc.ErrCorrupt; input that ends
// early unarc.ErrTruncated (and io.ErrUnexpectedEOF); a block size above
// WithMaxMemory unarc.ErrLimit; an option value that cannot be meant
// unarc.ErrInvalidOption.
package bzip2
