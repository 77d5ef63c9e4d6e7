package unarc_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
)

// BenchmarkSeekRandomKinds is BenchmarkSeekRandom for the BZip2 and PPMd
// checkpoints, on the cached benchmark archives (~/.cache/unarc-bench,
// made by the bench module; skipped when absent): 7z PPMd and ZIP PPMd
// of the first 8 MiB of mixed-0.bin (7-Zip -mx5: a 16 MiB model), and
// mixed-3.bin (50 MiB) of the BZip2 ZIP of mixed-200 (900k blocks).
// After a first pass through a SeekableEntry, 1 MiB reads at random
// offsets (fixed seed), with checkpoints every 1 MiB (cp=1M) and with
// none (cp=off, each backward read decoding from the entry's start).
// Reported: cpu-ms/read (user+sys of the process), ms/read (wall) and
// the checkpoint memory held (cp-MiB; PPMd: the whole model each).
// tar-zst-frames is mixed-3.bin in a GNU tar as zstd frames of 2 MiB of
// the tar each (zstd -3, concatenated, as t2sz or pzstd make them):
// checkpoints come at frame boundaries. Make it with
//
//	tar --format=gnu -C ~/.cache/unarc-bench/mixed-200 -cf m3.tar mixed-3.bin
//	split -b 2M -a 3 m3.tar part. && for p in part.*; do zstd -q -3 -c < $p; done \
//	    > ~/.cache/unarc-bench/mixed3-frames-2m.tar.zst
func BenchmarkSeekRandomKinds(b *testing.B) {
	home, _ := os.UserHomeDir()
	dir := filepath.Join(home, ".cache", "unarc-bench")
	for _, c := range []struct{ name, file, entry string }{
		{"7z-ppmd-8m", "7z-ppmd-mixed0-8m.7z", "mixed-0-8m.bin"},
		{"zip-ppmd-8m", "zip-ppmd-mixed0-8m.zip", "mixed-0-8m.bin"},
		{"zip-bzip2", "mixed-zip-bzip2.zip", "mixed-3.bin"},
		{"tar-zst-frames", "mixed3-frames-2m.tar.zst", "mixed-3.bin"},
	} {
		for _, cp := range []int64{1 << 20, 0} {
			label := "cp=1M"
			reads := 20
			if testing.Short() {
				reads = 5
			}
			if cp == 0 {
				label, reads = "cp=off", 3
			}
			b.Run(c.name+"/"+label, func(b *testing.B) {
				data, err := os.ReadFile(filepath.Join(dir, c.file))
				if err != nil {
					b.Skipf("no cached benchmark archive: %v", err)
				}
				benchSeekReads(b, data, []unarc.Option{unarc.WithWorkers(1), unarc.WithCheckpoints(cp, 256<<20)}, c.entry, reads, nil)
			})
		}
	}
}
