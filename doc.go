// Package unarc reads archives in pure Go (no cgo): RAR (every version,
// 1.5 to 7), ZIP (Deflate, Deflate64, BZip2, LZMA, XZ, Zstandard, PPMd
// and the legacy methods; ZipCrypto and WinZip AES), 7z, and tar, plain
// or compressed with gzip, bzip2, xz, zstd, lzip or lzma (.tar.gz,
// .tgz, .tar.zst …), and a single compressed file (.gz, .xz …) as a
// one-entry archive. Archives are written by the format packages: 7z
// (LZMA2, LZMA, filters, AES-256) through sevenzip.NewWriter.
//
// It offers random access through Archive (an io.ReaderAt and its size,
// or a file), forward-only streaming through Reader (any io.Reader: a
// pipe, a socket), safe extraction into a directory, an io/fs view that
// http.FileServer can serve, seekable entries (OpenSeekable), a
// persistable index to reopen a large archive without parsing it again
// (Archive.Index, WithIndex), and verification with content digests
// (Verify). The format is detected from content, SFX stubs included;
// multi-volume sets are read from the OS, from any fs.FS or from a
// callback (WithVolumes, WithVolumeOpener).
//
//	a, err := unarc.OpenFile("backup.rar", unarc.WithPassword(pw))
//	if err != nil {
//		return err
//	}
//	defer a.Close()
//	for _, e := range a.Entries() {
//		fmt.Println(e.Name, e.Size, e.Modified)
//	}
//	data, err := fs.ReadFile(a, "docs/readme.txt") // verified against its CRC
//	// Extract refuses paths and links that escape "out"; its options
//	// are this call's.
//	err = a.Extract(ctx, "out", unarc.WithOverwrite(unarc.OverwriteSkip))
//
// # Options
//
// Every option is a function of one role, and a value that cannot be
// meant (a nil callback, an unknown policy) fails the call with
// ErrInvalidOption before anything is read or written. Option is what
// opening needs (password, limits, volumes, index, checkpoints, workers,
// WithContext); ExtractOption is one Extract call's (WithFilter,
// WithOverwrite, WithConflictFunc, WithPreservePermissions, WithProgress,
// WithSpaceCheck), so one Archive can extract several subsets;
// VerifyOption is one Verify or VerifyFunc call's (VerifyFilter,
// WithDigests, VerifyProgress); IndexOption is Archive.Index's.
//
// # Limits
//
// Nothing a header declares is trusted for allocation. Limits (set with
// WithLimits) bound the dictionary, the decoder memory of an entry, the
// index, the number and size of entries, the total output, the
// compression ratio, name length and depth, and key-derivation work; a
// crossed limit fails with ErrLimit (LimitName says which). Sizes that
// headers declare bound each entry, and Extract and Verify judge the
// declared total (against MaxTotalSize, and for Extract the free space of
// the destination, WithSpaceCheck) before decoding; the ratio applies to
// output no header declares. Zero fields take DefaultLimits,
// which read anything the reference tools write; SafeLimits is the
// stricter profile the unarc command uses against decompression bombs.
//
// # Errors
//
// Every error caused by the input matches exactly one sentinel with
// errors.Is: ErrFormat, ErrCorrupt, ErrTruncated, ErrChecksum,
// ErrPasswordRequired, ErrPassword, ErrUnsupported, ErrInsecurePath or
// ErrLimit. An error about one entry — from OpenEntry, from reading what
// it returned, from Reader or Extract — is an *EntryError naming the
// entry once; Extract collects them in an *ExtractError and goes on with
// the other entries. A checksum is verified when an entry is read to its
// end: the mismatch comes in place of io.EOF, never as silent bad data.
// A password callback that returns an error aborts with ErrAborted.
//
// # Passwords
//
// WithPassword gives one password; WithPasswordFunc and
// WithPasswordPrompt ask when one is needed. The answer is cached for the
// Archive's life, a wrong one is asked again (three answers for one need), and
// Entry.Encrypted and the listing are available without any password
// unless the headers themselves are encrypted.
//
// # Concurrency
//
// An Archive is safe for concurrent use: several goroutines may open and
// read entries at once (entries of one solid block share a decoder, so
// they decode in turn), and its fs.FS methods may be called concurrently.
// Each reader OpenEntry returns, and each opened fs.File, belongs to one
// goroutine at a time, except that fs.File's ReadAt may be called
// concurrently. A Reader is a single stream: use it from one goroutine.
// Close an Archive only after its readers are closed; a reader used
// after that fails, it never returns another archive's data.
package unarc
