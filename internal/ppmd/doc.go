// Package ppmd decodes PPMd variant H (Dmitry Shkarin's PPMd var.H, 2001)
// in the two flavours found in archives.
//
// 7z coder 03 04 01 drives the model with 7-Zip's range decoder
// ("Ppmd7z"). Its 5 property bytes are the model order and the memory
// size as a little-endian uint32:
//
//	z, err := ppmd.NewReader7zProps(packed, props, unpackSize, maxMem)
//	// or: order, mem, err := ppmd.ParseProps7z(props); check mem; NewReader7z(packed, order, mem, unpackSize)
//	... z.Read ... (io.EOF after unpackSize bytes; the coder must end cleanly)
//	z.Reset(next, order, mem, size) // reuses arena and input buffer
//	z.Close()                       // arena back to the pool
//
// RAR 2.9/3.x (unpack version 29) drives the same model with Subbotin's
// carry-less range decoder ("Ppmd7a") inside PPMd blocks of the v29
// stream; the v29 unpacker runs the escape protocol and asks RAR for one
// symbol at a time:
//
//	var d ppmd.RAR                 // zero value ready; d.MaxMemory caps the model
//	esc, err := d.ReadHeader(br)   // br at the aligned byte whose bit 7 flagged PPMd
//	if esc >= 0 { escChar = esc }
//	c, err := d.Decode()           // per symbol, from the same br
//	d.Reset()                      // new non-solid file: next block must reset the model
//	d.Close()
//
// ZIP method 98 uses a different model, PPMd variant I revision 1
// ("PPMd8", ppmd8*.go), with Subbotin's range decoder and a 2-byte header
// giving the order, the memory (1..256 MiB) and the restoration method
// (restart or cut off); it ends with an end marker:
//
//	z, err := ppmd.NewReaderZip(packed, size, maxMem) // ErrLimit before allocating
//	... z.Read ... (io.EOF after size bytes, the end marker and a clean end)
//	z.Reset(next, size, maxMem)                       // reuses arena and buffer
//	z.Close()
//
// The model lives in one arena of memSize bytes addressed by 32-bit
// offsets (no pointers, so the garbage collector never scans it). Its
// sub-allocator (units.go, one for both models) hands out 12-byte units
// exactly like the reference implementation (Ppmd7.c, Ppmd8.c): the
// moment the arena fills and the model restarts is part of the format,
// so the allocator cannot be changed freely.
//
// The readers take their input from a source that can be peeked in place
// (Peek, Discard, Buffered: *bufio.Reader, zip's stream input) without a
// call per byte and leave it positioned after what they decoded; an
// io.ByteReader is read a byte at a time, anything else is buffered.
//
// # Security
//
// The arena is as large as the stream says (up to 4 GiB for 7z, 256 MiB
// for RAR), whatever the data size: check it against your limits first
// (NewReader7zProps and RAR.MaxMemory do, with errs.ErrLimit). Corrupt
// input yields errors wrapping errs.ErrCorrupt, and input that ends early
// errors matching errs.ErrTruncated and io.ErrUnexpectedEOF; neither
// panics nor loops forever. The model's state changes only through
// symbols a valid encoder could also have produced, so arena offsets stay
// in range by construction; every access is still bounds-checked by Go.
package ppmd
