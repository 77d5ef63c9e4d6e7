package testutil

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// The mixed-200 workload (DESIGN.md): four files of 800 chunks of 64 KiB,
// even chunks random bytes, odd chunks text records.
const (
	MixedFiles     = 4
	MixedChunk     = 65536
	MixedChunks    = 800
	MixedFileSize  = MixedChunk * MixedChunks // 52,428,800
	MixedTotalSize = MixedFiles * MixedFileSize
)

// MixedSHA256 are the published sums of mixed-0.bin … mixed-3.bin.
var MixedSHA256 = [MixedFiles]string{
	"5cfdd5940f828228123e2a96b84ee17602d45ddc353560f2d659f0c3f5f161b3",
	"65348d590c878a7879effd6f9abfc6010f0b064b509d19486b962c0683bd8505",
	"4ae820e515dd2e31da9e3c3a4b8a48b85d2b0c028edeb8761345b94e803f4e42",
	"ec967aee94f6b052f85f1d4f63539d4608fa24414be842854ad35b1ae59fad3d",
}

// Mixed returns the content of mixed-<i>.bin (52,428,800 bytes).
func Mixed(i int) []byte {
	var seed [32]byte
	seed[0] = byte(i)
	g := rand.NewChaCha8(seed)
	out := make([]byte, 0, MixedFileSize)
	n := 0 // record counter, continues across chunks
	var rec []byte
	for k := 0; k < MixedChunks; k++ {
		if k%2 == 0 {
			start := len(out)
			out = out[:start+MixedChunk]
			g.Read(out[start:])
			continue
		}
		left := MixedChunk
		for left > 0 {
			v := g.Uint64() % 10000000
			status := "ok"
			if v%7 == 0 {
				status = "retry"
			}
			rec = fmt.Appendf(rec[:0], "rec=%09d user=u%05d amount=%7d.%02d status=%s\n",
				n, (n*7919)%100000, v/100, v%100, status)
			n++
			if len(rec) > left {
				rec = rec[:left]
			}
			out = append(out, rec...)
			left -= len(rec)
		}
	}
	return out
}

// MixedName is the file name of workload file i.
func MixedName(i int) string { return fmt.Sprintf("mixed-%d.bin", i) }

// CacheDir is where the workload and its archives are kept between runs:
// $UNARC_BENCH_CACHE, else the user cache dir, outside the repository.
func CacheDir(tb TB) string {
	tb.Helper()
	dir := os.Getenv("UNARC_BENCH_CACHE")
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		dir = filepath.Join(c, "unarc-bench")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

var mixedOnce sync.Mutex

// MixedDir writes the four workload files into the cache (once) and
// returns the folder holding them.
func MixedDir(tb TB) string {
	tb.Helper()
	mixedOnce.Lock()
	defer mixedOnce.Unlock()
	dir := filepath.Join(CacheDir(tb), "mixed-200")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < MixedFiles; i++ {
		p := filepath.Join(dir, MixedName(i))
		if st, err := os.Stat(p); err == nil && st.Size() == MixedFileSize {
			continue
		}
		if err := os.WriteFile(p+".tmp", Mixed(i), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// MixedArchive makes (once, cached) an archive of the workload named name
// by running tool with args; the archive path is appended by the caller
// through the "{out}" placeholder in args, and the four inputs are added
// after args. It skips the benchmark when tool is missing.
//
//	MixedArchive(b, "zip-deflate.zip", "7zz", "a", "-tzip", "-mx5", "-mmt1", "{out}")
func MixedArchive(tb TB, name, tool string, args ...string) string {
	tb.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		tb.Skipf("%s not installed (../shared/tools/install-reference-tools.sh installs it); skipping %s", tool, name)
	}
	src := MixedDir(tb)
	out := filepath.Join(CacheDir(tb), name)
	mixedOnce.Lock()
	defer mixedOnce.Unlock()
	if _, err := os.Stat(out); err == nil {
		return out
	}
	// A per-process temporary name: several test binaries (packages) may
	// build the same archive at once; the last rename wins, all are equal.
	tmp := fmt.Sprintf("%s.tmp%d%s", out, os.Getpid(), filepath.Ext(name))
	os.Remove(tmp)
	defer os.Remove(tmp)
	var full []string
	for _, a := range args {
		if a == "{out}" {
			a = tmp
		}
		full = append(full, a)
	}
	for i := 0; i < MixedFiles; i++ {
		full = append(full, MixedName(i))
	}
	cmd := exec.Command(tool, full...)
	cmd.Dir = src
	if o, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", tool, full, err, o)
	}
	if err := os.Rename(tmp, out); err != nil {
		tb.Fatal(err)
	}
	return out
}
