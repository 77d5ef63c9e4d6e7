package unarc

// StreamCheck names the checksum of the compressed stream around the
// archive that covers every entry's content, as a compressed tarball
// has ("gzip CRC32", "xz CRC64", "zstd XXH64" …), or "" when there is
// none (other formats check each entry; a plain tar, .lzma, an xz
// stream with check None or a zstd stream without checksum check
// nothing). Open has verified it for an Archive; Verify reports such
// entries as VerifyStream.
func (a *Archive) StreamCheck() string { return streamCheck(a.a) }

// StreamCheck is Archive.StreamCheck for a forward Reader. The Reader
// verifies it where the stream ends: a mismatch is the error of the
// Next (or read, Extract or Verify) that reaches the end.
func (r *Reader) StreamCheck() string { return streamCheck(r.r) }

// streamCheck asks a format Archive or Reader for its stream checksum
// (tar's StreamCheck).
func streamCheck(f any) string {
	if sc, ok := f.(interface{ StreamCheck() string }); ok {
		return sc.StreamCheck()
	}
	return ""
}
