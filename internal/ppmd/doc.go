// Package ppmd decodes PPMd variant H (Dmitry Shkarin's PPMd var.H, 2001)
// in the two flavours found in archives:
//
//   - 7z coder 03 04 01: the model driven by 7-Zip's range decoder
//     ("Ppmd7z"). Props are 5 bytes: the model order and the memory size
//     as a little-endian uint32 (see ParseProps7z). Use NewReader7z.
//   - RAR 2.9/3.x (unpack version 29): the same model driven by Subbotin's
//     carry-less range decoder ("Ppmd7a"), embedded in the v29 stream as
//     PPMd blocks. The v29 unpacker drives a RAR value symbol by symbol.
//
// The model lives in one arena of memSize bytes addressed by 32-bit
// offsets (no pointers, so the garbage collector never scans it). Its
// sub-allocator hands out 12-byte units exactly like the reference
// implementation: the moment the arena fills and the model restarts is
// part of the format, so the allocator cannot be changed freely.
//
// # Security
//
// The arena is as large as the stream says (up to 4 GiB for 7z, 256 MiB
// for RAR). Callers must check the size against their limits before
// calling NewReader7z or letting a RAR block header reset the model:
// ParseProps7z returns the size, RAR.MaxMemory caps it. Corrupt input
// yields errors wrapping errs.ErrCorrupt, and input that ends early
// errors matching errs.ErrTruncated and io.ErrUnexpectedEOF; neither
// panics nor loops forever.
package ppmd
