package unarc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"testing"
)

// manyEntries is a tar.gz of n small files.
func manyEntries(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i := range n {
		body := fmt.Sprintf("file %d\n", i)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("dir/file-%06d.txt", i), Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestVerifyResultMemory: Verify's slice keeps every result and, for a
// Reader, every entry with its tar header (issue 30: 428-938 MiB on a
// count bomb); it is held to MaxHeaderMemory as a total (ErrLimit, with
// the results so far), while VerifyFunc keeps nothing and reports every
// entry under the same limit.
func TestVerifyResultMemory(t *testing.T) {
	const n = 20_000
	data := manyEntries(t, n)
	lim := Limits{MaxHeaderMemory: 2 << 20} // ~1,000 bytes per entry kept: 20 MB for all
	r, err := NewReader(bytes.NewReader(data), WithLimits(lim))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Verify(context.Background())
	r.Close()
	if !errors.Is(err, ErrLimit) || len(res) == 0 || len(res) >= n {
		t.Errorf("Reader.Verify: %d results, %v; want some and ErrLimit", len(res), err)
	}

	r, err = NewReader(bytes.NewReader(data), WithLimits(lim))
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	err = r.VerifyFunc(context.Background(), func(v *VerifyResult) error {
		if v.Status != VerifyStream || v.Entry.Name != fmt.Sprintf("dir/file-%06d.txt", count) {
			return fmt.Errorf("result %d: %s %v", count, v.Entry.Name, v.Status)
		}
		count++
		return nil
	})
	r.Close()
	if err != nil || count != n {
		t.Errorf("Reader.VerifyFunc: %d results, %v", count, err)
	}

	// The Archive's slice form and VerifyFunc agree where the limit
	// admits the slice.
	a, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	all, err := a.Verify(context.Background())
	if err != nil || len(all) != n {
		t.Fatalf("Archive.Verify: %d results, %v", len(all), err)
	}
	i := 0
	err = a.VerifyFunc(context.Background(), func(v *VerifyResult) error {
		if w := all[i]; v.Entry != w.Entry || v.Status != w.Status || v.Size != w.Size {
			return fmt.Errorf("result %d differs", i)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Errorf("Archive.VerifyFunc: %d results, %v", i, err)
	}
}
