package unarc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// damageSentinel reports whether err is damage to a stream.
func damageSentinel(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTruncated) || errors.Is(err, ErrChecksum)
}

// TestDamagedTarGz: a tar.gz cut short or with a flipped byte opens with
// the entries before the damage, as NewReader returns them, and reports
// the damage: a warning, and an error on the last entry listed (Verify,
// Extract), never silence (issue 29: Open failed outright while the
// Reader and the CLI recovered the intact entries).
func TestDamagedTarGz(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	const n = 20
	for i := range n {
		var body strings.Builder
		for j := range 200 {
			fmt.Fprintf(&body, "entry %d line %d\n", i, j)
		}
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%02d.txt", i), Mode: 0o644, Size: int64(body.Len())})
		io.WriteString(tw, body.String())
	}
	tw.Close()
	zw.Close()
	good := buf.Bytes()
	cut := good[:len(good)*6/10]
	flip := append([]byte{}, good...)
	flip[len(flip)*6/10] ^= 0x10
	crc := append([]byte{}, good...)
	crc[len(crc)-8] ^= 1 // the gzip CRC32: every entry decodes, the check fails
	for _, c := range []struct {
		name string
		data []byte
	}{{"cut", cut}, {"flipped", flip}, {"crc", crc}} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Open(bytes.NewReader(c.data), int64(len(c.data)))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer a.Close()
			ents := a.Entries()
			if len(ents) == 0 || len(ents) > n {
				t.Fatalf("%d entries", len(ents))
			}
			warned := false
			for _, w := range a.Warnings() {
				warned = warned || damageSentinel(w)
			}
			if !warned {
				t.Errorf("warnings %v; want the damage", a.Warnings())
			}

			// The Reader returns the same entries before its error.
			r, err := NewReader(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for {
				e, err := r.Next()
				if err != nil {
					if !damageSentinel(err) {
						t.Errorf("Reader: %v", err)
					}
					break
				}
				names = append(names, e.Name)
			}
			r.Close()
			if len(names) != len(ents) {
				t.Errorf("Reader returned %d entries, the Archive lists %d", len(names), len(ents))
			}

			res, err := a.Verify(context.Background())
			if err != nil || len(res) != len(ents) {
				t.Fatalf("Verify: %d results, %v", len(res), err)
			}
			// The entries before decode, but the stream's check that
			// covers them failed or never came: not VerifyStream.
			for i, v := range res[:len(res)-1] {
				if v.Err != nil || v.Status != VerifyNoChecksum {
					t.Errorf("entry %d before the damage: %v %v", i, v.Status, v.Err)
				}
			}
			if last := res[len(res)-1]; !damageSentinel(last.Err) {
				t.Errorf("the last entry: %v %v; want the damage", last.Status, last.Err)
			}
			if err := a.Extract(context.Background(), t.TempDir()); !damageSentinel(err) {
				t.Errorf("Extract: %v; want the damage", err)
			}
		})
	}
}
