package unarc_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/sevenzip"
)

// benchCase is one archive of the mixed-200 workload (DESIGN.md), made by
// a reference tool into the benchmark cache outside the repository.
type benchCase struct {
	name     string
	file     string
	tool     string
	args     []string
	password string
	noReader bool // the format cannot be read forward-only (7z)
	// gen, if set, writes the archive to path instead of tool (no
	// reference tool writes it).
	gen     func(tb testutil.TB, path string)
	debData bool // a .deb read as its data tarball (WithDebData)
}

var benchCases = []benchCase{
	{name: "zip-store", file: "mixed-zip-store.zip", tool: "7zz", args: []string{"a", "-tzip", "-mx0", "-mmt1", "{out}"}},
	{name: "zip-deflate", file: "mixed-zip-deflate.zip", tool: "7zz", args: []string{"a", "-tzip", "-mx5", "-mmt1", "{out}"}},
	{name: "zip-deflate64", file: "mixed-zip-deflate64.zip", tool: "7zz", args: []string{"a", "-tzip", "-mm=Deflate64", "-mx5", "-mmt1", "{out}"}},
	{name: "zip-aes", file: "mixed-zip-aes.zip", tool: "7zz", args: []string{"a", "-tzip", "-mem=AES256", "-mx5", "-mmt1", "-pSECRET", "{out}"}, password: "SECRET"},
	{name: "zip-ppmd", file: "mixed-zip-ppmd.zip", tool: "7zz", args: []string{"a", "-tzip", "-mm=PPMd", "-mx5", "-mmt1", "{out}"}},
	// The same archive as BenchmarkExtractParallel's zip-bzip2 (7zz's default threads do not change its bytes).
	{name: "zip-bzip2", file: "mixed-zip-bzip2.zip", tool: "7zz", args: []string{"a", "-tzip", "-mm=BZip2", "-mx5", "{out}"}},
	{name: "7z-lzma2", file: "7z-lzma2.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "{out}"}, noReader: true},
	{name: "7z-lzma", file: "7z-lzma.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma", "-mx5", "-mmt1", "-md8m", "{out}"}, noReader: true},
	{name: "7z-ppmd", file: "7z-ppmd.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=ppmd", "-mx5", "-mmt1", "{out}"}, noReader: true},
	// No tool here writes 7z with Zstandard (issue 33): our writer does,
	// at zstd level 3 as tar-zst's zstd -3, one solid folder.
	{name: "7z-zstd", file: "7z-zstd-l3.7z", gen: writeSevenZstd, noReader: true},
	{name: "7z-aes", file: "7z-aes.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "-pSECRET", "-mhe=on", "{out}"}, password: "SECRET", noReader: true},
	{name: "rar5", file: "mixed-rar5.rar", tool: "rar", args: rar5Args()},
	{name: "rar5-solid", file: "mixed-rar5-solid.rar", tool: "rar", args: rar5Args("-s")},
	{name: "rar5-blake2", file: "mixed-rar5-blake2sp.rar", tool: "rar", args: rar5Args("-htb")},
	{name: "rar5-aes", file: "mixed-rar5-aes.rar", tool: "rar", args: rar5Args("-pSECRET", "-hpSECRET"), password: "SECRET"},
	{name: "rar4", file: "mixed-rar4.rar", tool: "rar6", args: []string{"a", "-ma4", "-m3", "-md4m", "-s-", "-ep", "-idq", "{out}"}},
	{name: "rar4-solid", file: "mixed-rar4-solid.rar", tool: "rar6", args: []string{"a", "-ma4", "-m3", "-md4m", "-s", "-ep", "-idq", "{out}"}},
	tarCase("tar-gz", "gz", "-z"),       // gzip -6 (tar -czf)
	tarCase("tar-zst", "zst", "--zstd"), // zstd -3
	tarCase("tar-xz", "xz", "-J"),       // xz -6
	// An initramfs-style cpio.gz (GNU cpio -H newc, gzip -6) and a .deb
	// (dpkg-deb -Zgzip) read as its data tarball.
	{name: "cpio-gz", file: "mixed-cpio.cpio.gz", tool: "sh", args: []string{"-c",
		`out=$1; shift; printf '%s\n' "$@" | cpio -o --quiet -H newc | gzip -6 > "$out"`, "sh", "{out}"}},
	{name: "deb", file: "mixed-deb.deb", tool: "sh", args: []string{"-c",
		`out=$1; shift; d=$(mktemp -d) && mkdir -p "$d/p/DEBIAN" && cp "$@" "$d/p/" &&
		printf 'Package: mixed\nVersion: 1\nArchitecture: all\nMaintainer: m <m@example.invalid>\nDescription: mixed-200\n' > "$d/p/DEBIAN/control" &&
		dpkg-deb --root-owner-group -Zgzip --build "$d/p" "$out" >/dev/null; rc=$?; rm -rf "$d"; exit $rc`, "sh", "{out}"},
		debData: true},
}

// tarCase is a GNU tar tarball of mixed-200 through its compressor
// option, which runs the compressor at its default level (gzip -6,
// zstd -3, xz -6) in a pipe, as tar -czf and friends do.
func tarCase(name, ext, opt string) benchCase {
	return benchCase{name: name, file: "mixed-" + name + ".tar." + ext, tool: "tar",
		args: []string{"--format=gnu", "--owner=0", "--group=0", "--mtime=2024-01-01", opt, "-cf", "{out}"}}
}

// rar5Args is the DESIGN.md RAR5 command line; extra switches replace -s-
// or -htc or add to it. (With -htb before -htc, rar used the last one:
// the rar5-blake2 archive, then mixed-rar5-blake2.rar, held CRC32s.)
func rar5Args(extra ...string) []string {
	args := []string{"a", "-cfg-", "-m3", "-md8m", "-mt1"}
	solid, hash := false, "-htc"
	for _, e := range extra {
		solid = solid || e == "-s"
		if e == "-htb" {
			hash = ""
		}
	}
	if !solid {
		args = append(args, "-s-")
	}
	args = append(args, extra...)
	args = append(args, "-ep")
	if hash != "" {
		args = append(args, hash)
	}
	return append(args, "-qo-", "-idq", "{out}")
}

// loadBench makes (or reuses) the archive and reads it into memory, so
// every iteration measures decoding, not the disk.
func loadBench(b testutil.TB, c benchCase) []byte {
	b.Helper()
	var p string
	if c.gen != nil {
		p = filepath.Join(testutil.CacheDir(b), c.file)
		if _, err := os.Stat(p); err != nil {
			c.gen(b, p+".tmp")
			if err := os.Rename(p+".tmp", p); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		p = testutil.MixedArchive(b, c.file, c.tool, c.args...)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// benchOptions: BenchmarkExtract is the single-worker workload (one
// goroutine decodes, as the native tools' -mmt1); BenchmarkExtractParallel
// measures the workers.
func benchOptions(c benchCase) []unarc.Option {
	opts := []unarc.Option{unarc.WithWorkers(1)}
	if c.password != "" {
		opts = append(opts, unarc.WithPassword(c.password))
	}
	if c.debData {
		opts = append(opts, unarc.WithDebData())
	}
	return opts
}

// extractArchive opens data with the random-access API and drains every
// entry (CRC verified) into io.Discard, checking sizes.
func extractArchive(b testutil.TB, data []byte, opts []unarc.Option) {
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.OpenEntry(e)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil {
			b.Fatal(err)
		}
		if n != e.Size {
			b.Fatalf("%s: %d bytes, want %d", e.Name, n, e.Size)
		}
		total += n
		rc.Close()
	}
	a.Close()
	if total != testutil.MixedTotalSize {
		b.Fatalf("extracted %d bytes, want %d", total, testutil.MixedTotalSize)
	}
}

// extractReader does the same through the forward-only Reader.
func extractReader(b testutil.TB, data []byte, opts []unarc.Option) {
	r, err := unarc.NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			b.Fatal(err)
		}
		if e.Size >= 0 && n != e.Size {
			b.Fatalf("%s: %d bytes, want %d", e.Name, n, e.Size)
		}
		total += n
	}
	r.Close()
	if total != testutil.MixedTotalSize {
		b.Fatalf("extracted %d bytes, want %d", total, testutil.MixedTotalSize)
	}
}

// BenchmarkExtract measures whole-archive extraction of the mixed-200
// workload: BenchmarkExtract/<case>/<api>.
func BenchmarkExtract(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			data := loadBench(b, c)
			opts := benchOptions(c)
			b.Run("archive", func(b *testing.B) {
				extractArchive(b, data, opts) // warm the pools
				b.SetBytes(testutil.MixedTotalSize)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					extractArchive(b, data, opts)
				}
			})
			if c.name == "7z-zstd" {
				b.Run("klauspost", func(b *testing.B) { benchZstdAlone(b, data) })
			}
			if c.noReader {
				return
			}
			b.Run("reader", func(b *testing.B) {
				extractReader(b, data, opts)
				b.SetBytes(testutil.MixedTotalSize)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					extractReader(b, data, opts)
				}
			})
		})
	}
}

// writeSevenZstd writes the workload as 7z with Zstandard at level 3
// (WithLevel(3) is zstd 3), one solid folder.
func writeSevenZstd(tb testutil.TB, path string) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zw, err := sevenzip.NewWriter(f, sevenzip.WithMethod(sevenzip.Zstd), sevenzip.WithLevel(3), sevenzip.WithFilter(sevenzip.FilterNone))
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < testutil.MixedFiles; i++ {
		w, err := zw.Create(testutil.MixedName(i))
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(testutil.Mixed(i)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
}

// benchZstdAlone is klauspost's decoder alone (serial, low memory, as
// the 7z coder makes it) on the 7z-zstd archive's folder: the same
// encoder over the same bytes makes the same stream, which is checked
// against the archive's pack stream (it starts at byte 32).
func benchZstdAlone(b *testing.B, archive []byte) {
	var ref bytes.Buffer
	zw, err := zstd.NewWriter(&ref, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)), zstd.WithEncoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < testutil.MixedFiles; i++ {
		zw.Write(testutil.Mixed(i))
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	if len(archive) < 32+ref.Len() || !bytes.Equal(archive[32:32+ref.Len()], ref.Bytes()) {
		b.Fatal("the reference stream is not the archive's pack stream")
	}
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		b.Fatal(err)
	}
	defer zd.Close()
	run := func() {
		if err := zd.Reset(bytes.NewReader(ref.Bytes())); err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, zd)
		if err != nil || n != testutil.MixedTotalSize {
			b.Fatalf("%d bytes (%v)", n, err)
		}
	}
	run()
	b.SetBytes(testutil.MixedTotalSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}
