package zip

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestDump prints what the Archive sees in each testdata archive (go test -run Dump -v).
func TestDump(t *testing.T) {
	if os.Getenv("ZIPDUMP") == "" {
		t.Skip("set ZIPDUMP=1")
	}
	files := testutil.Glob(t, "../testdata/zip/*.zip")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Logf("%s: %v", p, err)
			continue
		}
		t.Logf("%s: comment %q", filepath.Base(p), a.Comment())
		for i, e := range a.Entries() {
			n, err := int64(0), error(nil)
			if rc, oerr := a.Open(i); oerr == nil {
				n, err = io.Copy(io.Discard, rc)
				rc.Close()
			} else {
				err = oerr
			}
			t.Logf("  %q %v size=%d packed=%d %s mod=%v cre=%v link=%v %q comment=%q read=%d err=%v", e.Name, e.Mode, e.Size, e.PackedSize, e.Method, e.Modified, e.Created, e.Link, e.LinkTarget, e.Comment, n, err)
		}
	}
}
