// Package tar reads tar archives, plain or inside a stream compressor,
// and single compressed files, and writes them (gzip, zstd, xz, lzip).
//
// # Formats
//
// Header formats: V7, POSIX ustar, star, GNU (long names and links 'L'
// and 'K', base-256 numbers, incremental directories 'D', old GNU
// sparse 'S') and PAX (extended 'x' and global 'g' records, GNU.sparse
// 0.0, 0.1 and 1.0), each read as archive/tar reads it; Entry.Sys holds
// the *archive/tar.Header. Symlinks and hard links keep their targets.
//
// # Compressors
//
// gzip (members concatenated), bzip2, xz (streams concatenated and
// padded), zstd (skippable frames too), lzip (members concatenated) and
// .lzma, detected from the first bytes, never from the file name. A
// stream whose content is not a tar archive is a single file: one entry,
// named by gzip's FNAME or by the input's name without the
// compressor's suffix (Config.Name), with the size -1 until it is read.
// FormatName says what was found ("tar", "tar.gz", … or "gzip", "xz",
// … for a single file) and StreamCheck which checksum covers the
// stream ("gzip CRC32", "xz CRC64", …; "" for none), which the decoder
// verifies at the end of each member, block or frame.
//
// # Streaming and random access
//
// NewReader reads forward only, from any io.Reader (a pipe, a network
// body): Next moves to the next entry and Read reads its content,
// decoding a compressed stream once. Open takes an io.ReaderAt: a plain
// tar is listed by reading its headers alone and an entry is read from
// its data offset; a compressed tarball has no directory, so Open
// decodes the stream once to list it, and opening an entry decodes it
// again up to that entry (continuing from the last closed entry when
// entries are opened in stored order). With Workers above 1, gzip, xz,
// lzip and .lzma are decoded ahead on another goroutine, and bzip2 and
// zstd decode blocks concurrently, within Limits.MaxMemory.
//
// # Seeking
//
// The root's OpenSeekable (and its fs.FS files) reads a tar entry from
// an offset: a plain entry directly; in a gzip, bzip2, lzip,
// .lzma, xz or multi-frame zstd stream from the nearest checkpoint of the
// decoder, taken as the stream is decoded (one per interval of output,
// as the root's seek options set it), so reading near the end of a large
// tarball does not decode it from the start each time.
//
// # Index
//
// The root's Archive.Index saves what listing found (the compressor,
// every header and its data offset in the decoded stream); WithIndex
// reopens the archive from it without decoding anything. An index is never trusted: the
// archive's ends are checked, and an entry's header is read (or decoded)
// again and compared before the entry is first opened, so a stale index
// fails with an error matching unarc.ErrStaleIndex instead of returning
// other bytes.
//
// # Limits and errors
//
// Decoders are bounded by Limits.MaxMemory and MaxDictionary before they
// allocate; a decoded stream by MaxTotalSize and MaxRatio against the
// compressed bytes read, whether its bytes are read or skipped; PAX
// records, long names and sparse maps by a fixed size. A truncated input
// is an error matching unarc.ErrTruncated, a damaged header or stream
// unarc.ErrCorrupt, a checksum mismatch unarc.ErrChecksum, a limit
// passed unarc.ErrLimit.
//
// # Writing
//
// NewWriter writes a tar archive with archive/tar's header writing
// (WriteHeader takes an *archive/tar.Header), plain or compressed with
// gzip, zstd, xz or lzip (WithCompression, WithLevel, WithThreads,
// WithBlockSize); NewCompressor writes a single compressed file with
// the same encoders. bzip2 and .lzma are not written.
//
// Most programs use the root package, which detects the format, and
// adds extraction and the fs.FS view; this package can also be used on
// its own with an *arc.Config.
package tar
