package unarc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestVerifyRAREncrypted: Verify counts the entries of rar -p archives as
// checked (issue 29: RAR5's MAC'd CRC made every entry VerifyNoChecksum).
func TestVerifyRAREncrypted(t *testing.T) {
	for _, name := range []string{"rar5_pw_stored.rar", "rar5_pw.rar", "rar5_pw_blake.rar", "rar4_pw_stored.rar"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "rar", name))
			if err != nil {
				t.Fatal(err)
			}
			a, err := Open(bytes.NewReader(data), int64(len(data)), WithPassword("test"))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			res, err := a.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			files := 0
			for _, r := range res {
				if r.Entry.IsDir() {
					continue
				}
				files++
				if r.Status != VerifyOK || !r.Entry.Verifiable() {
					t.Errorf("%s: status %v, verifiable %v; want ok", r.Entry.Name, r.Status, r.Entry.Verifiable())
				}
			}
			if files == 0 {
				t.Fatal("no files verified")
			}
		})
	}
}
