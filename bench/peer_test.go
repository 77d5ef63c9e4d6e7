package bench

import (
	stdzip "archive/zip"
	"bytes"
	"testing"

	"github.com/bodgit/sevenzip"
	kzip "github.com/klauspost/compress/zip"
	"github.com/nwaples/rardecode/v2"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// workload is one archive of the mixed-200 workload. The file names and
// command lines are those of the root package's BenchmarkExtract, so both
// modules share one cached copy of each archive.
type workload struct {
	name, file, tool string
	args             []string
	password         string
	peers            []string // which peers read it
}

func rar5Args(extra ...string) []string {
	args := []string{"a", "-cfg-", "-m3", "-md8m", "-mt1"}
	solid := false
	for _, e := range extra {
		solid = solid || e == "-s"
	}
	if !solid {
		args = append(args, "-s-")
	}
	args = append(args, extra...)
	return append(args, "-ep", "-htc", "-qo-", "-idq", "{out}")
}

var workloads = []workload{
	{name: "zip-deflate", file: "mixed-zip-deflate.zip", tool: "7zz", args: []string{"a", "-tzip", "-mx5", "-mmt1", "{out}"}, peers: []string{"stdlib", "klauspost"}},
	{name: "zip-store", file: "mixed-zip-store.zip", tool: "7zz", args: []string{"a", "-tzip", "-mx0", "-mmt1", "{out}"}, peers: []string{"stdlib", "klauspost"}},
	{name: "7z-lzma2", file: "7z-lzma2.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "{out}"}, peers: []string{"bodgit"}},
	{name: "7z-lzma", file: "7z-lzma.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma", "-mx5", "-mmt1", "-md8m", "{out}"}, peers: []string{"bodgit"}},
	{name: "7z-ppmd", file: "7z-ppmd.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=ppmd", "-mx5", "-mmt1", "{out}"}, peers: []string{"bodgit"}},
	{name: "7z-aes", file: "7z-aes.7z", tool: "7zz", args: []string{"a", "-t7z", "-m0=lzma2", "-mx5", "-mmt1", "-md8m", "-pSECRET", "-mhe=on", "{out}"}, password: "SECRET", peers: []string{"bodgit"}},
	{name: "rar5", file: "mixed-rar5.rar", tool: "rar", args: rar5Args(), peers: []string{"rardecode"}},
	{name: "rar5-solid", file: "mixed-rar5-solid.rar", tool: "rar", args: rar5Args("-s"), peers: []string{"rardecode"}},
	{name: "rar5-aes", file: "mixed-rar5-aes.rar", tool: "rar", args: rar5Args("-pSECRET", "-hpSECRET"), password: "SECRET", peers: []string{"rardecode"}},
	{name: "rar4", file: "mixed-rar4.rar", tool: "rar6", args: []string{"a", "-ma4", "-m3", "-md4m", "-s-", "-ep", "-idq", "{out}"}, peers: []string{"rardecode"}},
	{name: "rar4-solid", file: "mixed-rar4-solid.rar", tool: "rar6", args: []string{"a", "-ma4", "-m3", "-md4m", "-s", "-ep", "-idq", "{out}"}, peers: []string{"rardecode"}},
}

// BenchmarkPeer extracts each workload archive with unarc's random-access
// API and with every Go peer that reads the format, in the same run, so
// the ratios hold on a loaded machine: BenchmarkPeer/<case>/<reader>.
func BenchmarkPeer(b *testing.B) {
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			data := loadFile(b, testutil.MixedArchive(b, w.file, w.tool, w.args...))
			b.Run("unarc", func(b *testing.B) {
				var opts []unarc.Option
				if w.password != "" {
					opts = append(opts, unarc.WithPassword(w.password))
				}
				run(b, testutil.MixedTotalSize, func(b *testing.B) int64 { return extractUnarc(b, data, opts) })
			})
			for _, p := range w.peers {
				b.Run(p, func(b *testing.B) {
					run(b, testutil.MixedTotalSize, func(b *testing.B) int64 { return extractPeer(b, p, data, w.password) })
				})
			}
		})
	}
}

// extractUnarc drains every entry of data through unarc.Open.
func extractUnarc(b *testing.B, data []byte, opts []unarc.Option) int64 {
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	var total int64
	for _, e := range a.Entries() {
		if !e.IsDir() {
			total += drainer{b}.drain(a.OpenEntry(e))
		}
	}
	return total
}

// extractPeer drains every entry of data with the named peer.
func extractPeer(b *testing.B, peer string, data []byte, password string) int64 {
	ra, size := bytes.NewReader(data), int64(len(data))
	switch peer {
	case "stdlib":
		zr, err := stdzip.NewReader(ra, size)
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for _, f := range zr.File {
			total += drainer{b}.drain(f.Open())
		}
		return total
	case "klauspost":
		zr, err := kzip.NewReader(ra, size)
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for _, f := range zr.File {
			total += drainer{b}.drain(f.Open())
		}
		return total
	case "bodgit":
		var zr *sevenzip.Reader
		var err error
		if password != "" {
			zr, err = sevenzip.NewReaderWithPassword(ra, size, password)
		} else {
			zr, err = sevenzip.NewReader(ra, size)
		}
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for _, f := range zr.File {
			total += drainer{b}.drain(f.Open())
		}
		return total
	case "rardecode":
		var opts []rardecode.Option
		if password != "" {
			opts = append(opts, rardecode.Password(password))
		}
		rr, err := rardecode.NewReader(ra, opts...)
		if err != nil {
			b.Fatal(err)
		}
		return drainNext(b, rr)
	}
	b.Fatalf("no peer %q", peer)
	return 0
}
