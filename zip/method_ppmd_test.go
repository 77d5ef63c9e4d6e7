package zip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
	"github.com/go-unarc/unarc/internal/testutil"
)

func ppmdTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "testdata", "zip", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPPMdBothAPIs reads the 7zz PPMd archives through Archive and the
// forward Reader; the zip layer checks each entry's size and CRC.
func TestPPMdBothAPIs(t *testing.T) {
	for _, name := range []string{"ppmd-mx1.zip", "ppmd-mx5.zip", "ppmd-mx9.zip", "ppmd-o2-mem1m.zip", "ppmd-cutoff.zip"} {
		data := ppmdTestdata(t, name)
		a, err := openCfg(data, arc.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var fromArchive [][]byte
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err != nil {
				t.Fatalf("%s: entry %d: %v", name, i, err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: entry %d: %v", name, i, err)
			}
			fromArchive = append(fromArchive, b)
		}
		z, err := NewReader(bytes.NewReader(data), conf.From(&arc.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			_, err := z.Next()
			if err == io.EOF {
				if i != len(fromArchive) {
					t.Fatalf("%s: Reader saw %d entries, Archive %d", name, i, len(fromArchive))
				}
				break
			}
			if err != nil {
				t.Fatalf("%s: Next: %v", name, err)
			}
			b, err := io.ReadAll(z)
			if err != nil {
				t.Fatalf("%s: entry %d: %v", name, i, err)
			}
			if !bytes.Equal(b, fromArchive[i]) {
				t.Fatalf("%s: entry %d differs between the APIs", name, i)
			}
		}
		z.Close()
	}
}

// TestPPMdMemoryLimit: a model above MaxMemory is ErrLimit, whether the
// limit is below the smallest model (refused before reading) or below the
// one the stream declares (refused after its 2-byte header). A model
// needs its tables (ppmd.Overhead) under the limit too.
func TestPPMdMemoryLimit(t *testing.T) {
	data := ppmdTestdata(t, "ppmd-o2-mem1m.zip") // text.txt: a 1 MiB model
	mem := int64(1<<20) + ppmd.Overhead(1<<20)
	if _, err := readEntry0(data, arc.Limits{MaxMemory: mem - 1}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("MaxMemory below the smallest model: %v, want ErrLimit", err)
	}
	if _, err := readEntry0(data, arc.Limits{MaxMemory: mem}); err != nil {
		t.Errorf("MaxMemory at the model size: %v", err)
	}
	data = ppmdTestdata(t, "ppmd-mx5.zip") // text.txt: a 2 MiB model
	for _, limit := range []int64{3 << 19, 2 << 20, 2<<20 + ppmd.Overhead(2<<20) - 1} {
		testPPMdOverLimit(t, data, limit)
	}
}

// testPPMdOverLimit: the 2 MiB model of text.txt in data is ErrLimit
// under limit (which is above the smallest model with its tables).
func testPPMdOverLimit(t *testing.T, data []byte, limit int64) {
	a, err := openCfg(data, arc.Limits{MaxMemory: limit})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range a.Entries() {
		if e.Name != "text.txt" {
			continue
		}
		rc, err := a.Open(i)
		if err == nil {
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		if !errors.Is(err, errs.ErrLimit) {
			t.Errorf("MaxMemory %d below the declared model with its tables: %v, want ErrLimit", limit, err)
		}
		return
	}
	t.Fatal("no text.txt")
}
