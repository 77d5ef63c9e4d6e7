// Package xz reads the .xz format (XZ Utils; "The .xz File Format" 1.2.0)
// in pure Go: one stream or concatenated streams with their padding, each
// a series of blocks whose filter chain is LZMA2 behind up to three BCJ
// (x86, PowerPC, IA-64, ARM, ARM-Thumb, SPARC, ARM64, RISC-V) or Delta
// filters, with its check (none, CRC32, CRC64 or SHA-256). .xz files,
// tar.xz and ZIP method 95 hold it. The package decodes; the lzma
// package's Writer2 writes the LZMA2 data inside.
//
// # Streaming
//
// A Reader decodes forward from any io.Reader, on the caller's goroutine,
// block after block; it is not safe for concurrent use. Reset reuses its
// buffers for the next input. With WithWorkers(n), blocks whose headers
// declare both sizes (xz -T writes them) are read ahead and decoded n at
// a time on goroutines that Close stops, then handed on in order; the
// output and the errors stay those of one worker.
//
// # Memory
//
// One block's LZMA2 window, which grows with the output up to the
// dictionary (a block that declares 64 MiB but holds 10 KiB costs about
// 10 KiB), a 64 KiB buffer per filter and a 64 KiB input buffer, all
// from pools that Close returns them to. WithMaxMemory and WithMaxDict
// refuse a block from its header, before allocating, when its declared
// dictionary and filters exceed the limit. With WithWorkers, each block
// in flight adds its packed bytes and its output; WithMaxMemory bounds
// them all together.
//
// # Errors
//
// Every check the format allows is made: stream header and footer, block
// headers and their declared sizes, padding, each block's check, the
// index against the blocks read. Errors match the unarc sentinels with
// errors.Is: input that is not .xz unarc.ErrFormat; a damaged header,
// index or footer unarc.ErrCorrupt; a block check that does not match
// unarc.ErrChecksum; input that ends early unarc.ErrTruncated (and
// io.ErrUnexpectedEOF); an unknown check type, filter or flag
// unarc.ErrUnsupported; a block above its limit unarc.ErrLimit; an
// option value that cannot be meant unarc.ErrInvalidOption.
package xz
