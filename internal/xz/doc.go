// Package xz decodes the .xz container (XZ Utils' file format, version
// 1.2.0 of "The .xz File Format"): streams of blocks, each block a filter
// chain of up to three BCJ or Delta filters over LZMA2, with its check
// (none, CRC32, CRC64 or SHA-256), the index that lists the blocks and the
// stream footer that points back at it. ZIP method 95 holds an .xz stream;
// tar.xz and standalone .xz files are one or more of them.
//
// # Use
//
//	z, err := xz.NewReader(r, xz.MaxMemory(limit))
//	n, err := io.Copy(dst, z) // uses z.WriteTo
//	z.Close()                 // or z.Reset(next) to reuse the buffers
//
// # What is checked
//
// Everything the format lets a decoder check: the stream header and footer
// (magic, flags, CRC32, the footer's backward size against the index
// really read, the flags of both being equal), every block header (its
// CRC32, reserved bits, padding, the compressed and uncompressed sizes it
// declares against what the block really holds), block padding, the
// block's check over the decoded data, and the index (its records against
// the blocks really read, its padding and CRC32). A damaged header, index
// or footer is errs.ErrCorrupt; a data check that does not match is
// errs.ErrChecksum; input that ends early is errs.ErrTruncated; a check
// type, filter or flag this package does not know is errs.ErrUnsupported
// naming it; a block whose dictionary and filter buffers exceed MaxMemory
// is errs.ErrLimit before anything is allocated for it.
//
// By default a reader decodes concatenated streams separated by stream
// padding (multiples of four zero bytes), as xz and 7-Zip do; SingleStream
// stops after the first stream's footer and leaves what follows unread
// (though it may have been buffered).
//
// # Memory
//
// The LZMA2 window comes from the lzma package and grows with the output,
// so a block that declares a 64 MiB dictionary but holds 10 KiB costs about
// the 10 KiB; MaxMemory is still checked against the declared dictionary,
// so a hostile header fails early instead of late. The input buffer, the
// LZMA2 window and tables and the filter buffers come from internal/pool
// and go back on Close; Reset keeps them, so a warm reader allocates
// nothing per stream.
//
// # Parallel blocks
//
// With Workers(n), blocks whose headers declare both sizes (xz -T, and
// liblzma's multi-threaded encoder) are read ahead whole and decoded n
// at a time on worker goroutines (parallel.go), within MaxMemory, and
// delivered in order; everything else, and everything after a block a
// worker finds wrong, goes through the serial path, so the output and the
// errors are those of one worker.
//
// This is the implementation behind the public xz package, which wraps it
// with functional options and a small surface; the format packages
// (sevenzip, tar, zip, rar) use this package directly for what only they
// need (checkpoints and their size bound).
package xz
