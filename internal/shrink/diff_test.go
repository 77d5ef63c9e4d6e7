package shrink

import (
	"bytes"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAgainst7zz: 7-Zip decodes what the test encoder writes, partial
// clears included, to the same bytes our decoder gives, so the encoder
// (and with it the round trips) follows the format as 7-Zip reads it.
// (Info-ZIP's unzip 6.0 reads streams whose table only clears when full,
// but not ones with earlier clears that leave strings pointing at freed
// codes; 7-Zip, hwzip and this package give such strings the freed
// code's later value.)
func TestAgainst7zz(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 7zz")
	}
	tool, err := exec.LookPath("7zz")
	if err != nil {
		t.Skip("7zz not installed")
	}
	inputs := map[string][]byte{
		"text":   textish(60_000, 21),
		"random": randomData(20_000, 22),
		"run":    bytes.Repeat([]byte("a"), 3000),
	}
	dir := t.TempDir()
	for name, data := range inputs {
		for _, every := range []int{0, 3, 50, 1000} {
			comp, _, _ := shrinkData(data, every)
			var b testutil.ZipBuilder
			b.Add(testutil.ZipFile{Name: "f", Method: 1, Packed: comp, CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
			p := filepath.Join(dir, "a.zip")
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(tool, "e", "-so", p).Output()
			if err != nil {
				t.Fatalf("%s/clear every %d: 7zz: %v", name, every, err)
			}
			ours, err := decode(t, comp, int64(len(data)))
			if err != nil || !bytes.Equal(out, data) || !bytes.Equal(ours, out) {
				t.Fatalf("%s/clear every %d: 7zz and this decoder disagree (%d/%d bytes, %v)", name, every, len(out), len(ours), err)
			}
		}
	}
}
