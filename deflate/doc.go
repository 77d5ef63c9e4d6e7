// Package deflate reads Deflate (RFC 1951) and Deflate64 streams in pure
// Go: ZIP methods 8 and 9, 7z's Deflate and Deflate64 coders, and the raw
// Deflate inside gzip and zlib once their headers are read. The package
// decodes; compress/flate writes Deflate.
//
// Deflate64 (PKWARE's "enhanced deflate") is Deflate with a 64 KiB
// window, length symbol 285 meaning 3 + 16 extra bits, and distance
// symbols 30 and 31 (bases 32769 and 49153, 14 extra bits each).
//
// # Streaming and input position
//
// A Reader decodes forward, on the caller's goroutine; it is not safe for
// concurrent use. Where it leaves its source at the end of the stream
// matters when data follows (a ZIP data descriptor, a gzip trailer):
//
//   - a source with Peek, Discard and Buffered (such as *bufio.Reader) is
//     left exactly after the last byte of the stream;
//   - an io.ByteReader without Seek is read one byte at a time and
//     likewise left exactly after the stream;
//   - any other source is buffered: an io.Seeker (bytes.Reader, os.File,
//     io.SectionReader) is sought back over what was read ahead;
//     otherwise, or if that Seek fails, the bytes read past the stream are
//     in Buffered.
//
// # Memory
//
// A Reader holds an output buffer of four windows (128 KiB for Deflate,
// 256 KiB for Deflate64) and, for dynamic blocks, Huffman tables of about
// 21 KiB, both from pools that Close returns them to; Reset keeps them,
// so a warm reader allocates nothing per stream. Nothing in a stream can
// make it allocate more.
//
// # Errors
//
// Errors match the unarc sentinels with errors.Is: an invalid block
// type, code lengths, an over-subscribed or incomplete Huffman code, a
// distance before the start of the stream unarc.ErrCorrupt; input that
// ends early unarc.ErrTruncated (and io.ErrUnexpectedEOF).
package deflate
