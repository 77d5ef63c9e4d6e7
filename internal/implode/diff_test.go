package implode

import (
	"bytes"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAgainst7zz: 7-Zip decodes what the test encoder writes, for every
// flag variant, to the same bytes our decoder gives, so the encoder (and
// with it the round trips) follows the format as 7-Zip reads it, not
// just as this package does.
func TestAgainst7zz(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 7zz")
	}
	tool, err := exec.LookPath("7zz")
	if err != nil {
		t.Skip("7zz not installed")
	}
	inputs := map[string][]byte{
		"text":   textish(40_000, 21),
		"random": randomData(5_000, 22),
		"run":    bytes.Repeat([]byte("ab"), 3000),
	}
	dir := t.TempDir()
	for name, data := range inputs {
		for _, v := range variants {
			var flags uint16
			if v.big {
				flags |= 2
			}
			if v.lit {
				flags |= 4
			}
			comp := implodeData(data, v.big, v.lit)
			var b testutil.ZipBuilder
			b.Add(testutil.ZipFile{Name: "f", Method: 6, Flags: flags, Packed: comp, CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
			p := filepath.Join(dir, "a.zip")
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(tool, "e", "-so", p).Output()
			if err != nil {
				t.Fatalf("%s/flags %d: 7zz: %v", name, flags, err)
			}
			ours, err := decode(comp, int64(len(data)), v.big, v.lit)
			if err != nil || !bytes.Equal(out, data) || !bytes.Equal(ours, out) {
				t.Fatalf("%s/flags %d: 7zz and this decoder disagree (%d/%d bytes, %v)", name, flags, len(out), len(ours), err)
			}
		}
	}
}
