// Package lzma reads and writes LZMA and LZMA2 streams in pure Go: the
// .lzma file format (LZMA_Alone), raw LZMA with its properties stored
// elsewhere (7z's LZMA coder, ZIP method 14) and LZMA2 (7z's LZMA2 coder,
// the LZMA2 filter of .xz files; the xz package reads the container).
//
// # Reading
//
// NewReader reads a .lzma file; NewRawReader a raw LZMA stream with
// Props (DecodeProps of the 5-byte properties block); NewReader2 an LZMA2
// stream with its dictionary size. A Reader streams: memory is its window,
// the smaller of the dictionary and the uncompressed size when that is
// known (with WithGrowWindow it grows as output appears), plus the
// probability tables (1.5 KiB << (lc+lp): 12 KiB with the usual lc=3,
// lp=0; 6 MiB at most) and a 64 KiB input buffer, all taken from pools
// and returned by Close. WithMaxDict refuses a window above a limit
// before allocating it. The reader may read past the end of the stream:
// give it a reader bounded to the stream (io.LimitReader,
// io.SectionReader) when more data follows.
//
// An LZMA2 stream written in independent blocks (by 7-Zip or xz with
// several threads, or NewWriter2 with WithThreads) decodes on several
// goroutines with WithWorkers; each worker then holds a block's input,
// output and window. Otherwise a Reader decodes on the caller's goroutine.
// A Reader is not safe for concurrent use.
//
// # Writing
//
// NewWriter writes a .lzma file, NewRawWriter a raw LZMA stream (its
// properties are Writer.Props), NewWriter2 an LZMA2 stream. WithLevel
// chooses 7-Zip's presets 0..9; its table gives the memory of each, from
// 3 MiB at level 0 to 2.8 GiB at level 9, shrunk to the data when
// WithKnownSize declares its size; WithMaxMemory refuses more. An LZMA2
// writer with WithThreads(n) encodes blocks on n goroutines, each with its
// own encoder's memory; its output does not depend on n.
//
// # Errors
//
// Errors match the unarc sentinels with errors.Is: damaged data
// unarc.ErrCorrupt, a stream that ends early unarc.ErrTruncated (and
// io.ErrUnexpectedEOF), a window or encoder above its limit
// unarc.ErrLimit, an option value that cannot be meant
// unarc.ErrInvalidOption. Use after Close is ErrClosed or
// ErrWriterClosed.
//
// The format follows lzma-specification.txt of the LZMA SDK (Igor
// Pavlov); LZMA2 framing follows Lzma2Dec.c of the same SDK.
package lzma
