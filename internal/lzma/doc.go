// Package lzma decodes LZMA and LZMA2 streams: raw LZMA with explicit
// properties, the 13-byte .lzma header form, the ZIP method 14 form and
// LZMA2 as used by 7z and xz.
//
// The decoders own their window, probability tables and input buffer;
// all three come from internal/pool and go back on Close, and Reset reuses
// them, so decoding a stream allocates nothing once the pools are warm.
// Both readers implement io.WriterTo, writing straight from the window.
//
// The format is described in lzma-specification.txt of the LZMA SDK
// ("LZMA specification", Igor Pavlov); section names below refer to it.
// LZMA2 framing follows Lzma2Dec.c of the same SDK and the xz file format.
//
// # Use
//
// 7z coders give the properties and the unpacked size:
//
//	p, err := lzma.DecodeProps(coderProps)          // LZMA: 5 bytes
//	z, err := lzma.NewReader(packed, p, size, lzma.MaxDict(limit))
//
//	dict, err := lzma.DictSizeLZMA2(coderProps[0]) // LZMA2: 1 byte
//	z, err := lzma.NewReader2(packed, dict, size, lzma.MaxDict(limit))
//
// ZIP method 14 uses NewReaderZip(data, size); .lzma files use
// NewReaderLZMAHeader. Copy out with io.Copy (WriteTo), then Close, or
// Reset for the next stream.
//
// # Security
//
// A window is sized by the data it will hold: min(dictionary, known size),
// or, when the size is unknown, grown by doubling up to the dictionary.
// MaxDict limits that size before anything is allocated. Input buffering
// may read past the end of the compressed stream; give the decoder a reader
// bounded to the stream (io.SectionReader, io.LimitReader) when more data
// follows it.
//
// This is the implementation behind the public lzma package
// (github.com/go-unarc/unarc/lzma), which wraps it with functional options
// and a small surface; the format packages (sevenzip, tar, zip, rar) use
// this package directly for what only they need (checkpoints, StepSize, the
// multi-thread sizing and the 7z/xz property helpers).
package lzma
