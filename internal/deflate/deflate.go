// Package deflate decodes Deflate (RFC 1951) and Deflate64 streams.
//
// Deflate64 (PKWARE's "enhanced deflate", ZIP method 9, also in 7z) is
// Deflate with a 64 KiB window, length symbol 285 meaning 3 + 16 extra
// bits, and distance symbols 30 and 31 (bases 32769 and 49153, 14 extra
// bits each).
//
// # Input position
//
// Container formats read the bytes that follow a stream (a ZIP data
// descriptor, the next header), so where the decoder leaves its source
// matters. At the end of the stream (when Read or WriteTo reports io.EOF):
//
//   - a source with Peek, Discard and Buffered (such as *bufio.Reader) is
//     left exactly after the last byte of the stream; the decoder reads
//     whole words from its buffer and discards only what it used;
//   - an io.ByteReader without Seek (and without Peek) is read one byte at
//     a time and likewise left exactly after the stream;
//   - any other source is wrapped in an internal buffer. If it implements
//     io.Seeker (bytes.Reader, os.File, io.SectionReader) the decoder seeks
//     back over what it read ahead; otherwise, or if that Seek fails, the
//     bytes read past the stream are available from Buffered.
//
// # Memory
//
// A Reader holds a pooled output buffer of four windows (128 KiB for
// Deflate, 256 KiB for Deflate64; matches never wrap, and the last window
// slides to the front when it fills) and, for dynamic blocks, pooled
// Huffman tables (about 21 KiB); Close returns both. Nothing is allocated
// per stream once the pools are warm. ResetSize lets a container pass the
// entry's declared size, so a small entry gets a buffer of about its size;
// the size is only a hint and a longer stream still decodes.
//
// This is the implementation behind the public deflate package, which wraps
// it with a small surface; the format packages (sevenzip, tar, zip, rar)
// use this package directly for what only they need (checkpoints, PauseAt
// and ResetSize).
package deflate
