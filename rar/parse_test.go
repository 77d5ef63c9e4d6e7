package rar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

var sentinels = []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
	errs.ErrPasswordRequired, errs.ErrPassword, errs.ErrUnsupported, errs.ErrInsecurePath, errs.ErrLimit}

// matched lists the sentinels err matches.
func matched(err error) []error {
	var m []error
	for _, s := range sentinels {
		if errors.Is(err, s) {
			m = append(m, s)
		}
	}
	return m
}

// only fails unless err matches exactly want among the sentinels.
func only(t *testing.T, what string, err, want error) {
	t.Helper()
	m := matched(err)
	if len(m) != 1 || m[0] != want {
		t.Errorf("%s: %v matches %v, want exactly %v", what, err, m, want)
	}
}

func hasWarning(ws []error, target error) bool {
	for _, w := range ws {
		if errors.Is(w, target) {
			return true
		}
	}
	return false
}

// archiveVerdict opens data as an Archive and reads every entry; it
// returns the first error, or nil with the archive's warnings.
//
//lint:ignore ST1008 the verdict comes first; the warnings only matter when it is nil
func archiveVerdict(data []byte, pw string) (error, []error) {
	cfg := &arc.Config{}
	if pw != "" {
		cfg.Password = func(*arc.Entry) (string, error) { return pw, nil }
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		return err, nil
	}
	defer a.Close()
	for i := range a.Entries() {
		if _, err := readAll(a, i); err != nil {
			return err, nil
		}
	}
	return nil, a.Warnings()
}

// readerVerdict is archiveVerdict through the forward-only Reader.
//
//lint:ignore ST1008 as archiveVerdict
func readerVerdict(data []byte, pw string) (error, []error) {
	cfg := &arc.Config{}
	if pw != "" {
		cfg.Password = func(*arc.Entry) (string, error) { return pw, nil }
	}
	r, err := NewReader(bytes.NewReader(data), conf.From(cfg))
	if err != nil {
		return err, nil
	}
	defer r.Close()
	for {
		_, err := r.Next()
		if err == io.EOF {
			return nil, r.Warnings()
		}
		if err != nil {
			return err, nil
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err, nil
		}
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// firstFileHeader returns the offset of the first header after the main
// header of a RAR4 or RAR5 archive that starts with its marker.
func firstFileHeader(t *testing.T, data []byte) int {
	t.Helper()
	if bytes.HasPrefix(data, sig5) {
		off := len(sig5)
		c := cursor{b: data[off+4:]}
		size := c.vint()
		vlen := len(data[off+4:]) - len(c.b)
		return off + 4 + vlen + int(size)
	}
	if bytes.HasPrefix(data, sig4) {
		off := len(sig4)
		return off + int(binary.LittleEndian.Uint16(data[off+5:]))
	}
	t.Fatal("no marker")
	return 0
}

// TestHeaderCRCIsCorrupt: a damaged header checksum is ErrCorrupt (the
// project rule; data checksums are ErrChecksum), and only that, through
// both APIs.
func TestHeaderCRCIsCorrupt(t *testing.T) {
	for _, name := range []string{"rar4_m0.rar", "rar5_m0.rar", "rar4_m3.rar", "rar5_m3.rar"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []int{0, firstFileHeader(t, data)} {
			d := bytes.Clone(data)
			if at == 0 {
				at = len(sig4)
				if bytes.HasPrefix(d, sig5) {
					at = len(sig5)
				}
			}
			d[at] ^= 0x40 // the header's own CRC field
			err, _ := archiveVerdict(d, "")
			only(t, name+" Archive", err, errs.ErrCorrupt)
			err, _ = readerVerdict(d, "")
			only(t, name+" Reader", err, errs.ErrCorrupt)
		}
	}
}

// TestWarnings: locked archives, recovery records and a missing
// end-of-archive record are reported through Warnings (engine.Warner) of
// both the Archive and the Reader; plain archives report nothing.
func TestWarnings(t *testing.T) {
	var _ engine.Warner = (*Archive)(nil)
	var _ engine.Warner = (*Reader)(nil)
	cases := []struct {
		name string
		cut  int // bytes cut from the end
		want []error
	}{
		{"rar4_m3.rar", 0, nil},
		{"rar5_m3.rar", 0, nil},
		{"rar4_locked.rar", 0, []error{ErrLocked}},
		{"rar5_locked.rar", 0, []error{ErrLocked}},
		{"rar4_rr.rar", 0, []error{ErrRecoveryRecord}},
		{"rar5_rr.rar", 0, []error{ErrRecoveryRecord}},
		{"rar4_m3.rar", 7, []error{errs.ErrTruncated}}, // the whole end block
		{"rar4_m3.rar", 3, []error{errs.ErrTruncated}}, // part of it
		{"rar5_m3.rar", 8, []error{errs.ErrTruncated}}, // the whole end header
		{"rar5_m3.rar", 3, []error{errs.ErrTruncated}}, // part of it
		{"rar4_locked.rar", 7, []error{ErrLocked, errs.ErrTruncated}},
	}
	for _, tc := range cases {
		data, err := os.ReadFile(filepath.Join(testdata, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		data = data[:len(data)-tc.cut]
		for api, verdict := range map[string]func([]byte, string) (error, []error){"Archive": archiveVerdict, "Reader": readerVerdict} {
			err, ws := verdict(data, "")
			if err != nil {
				if tc.cut > 0 && api == "Reader" {
					only(t, tc.name+" Reader", err, errs.ErrTruncated)
					continue
				}
				t.Errorf("%s -%d via %s: %v", tc.name, tc.cut, api, err)
				continue
			}
			if len(ws) != len(tc.want) {
				t.Errorf("%s -%d via %s: warnings %v, want %v", tc.name, tc.cut, api, ws, tc.want)
				continue
			}
			for _, w := range tc.want {
				if !hasWarning(ws, w) {
					t.Errorf("%s -%d via %s: warnings %v lack %v", tc.name, tc.cut, api, ws, w)
				}
			}
		}
	}
}

// TestMessagesWithoutName: errors of one entry do not name it (the root
// wraps them in an EntryError that does) and do not say "unarc:" twice.
func TestMessagesWithoutName(t *testing.T) {
	for _, tc := range []struct {
		name, pw string
		lim      arc.Limits
		want     error
	}{
		{"rar5_pw.rar", "wrong", arc.Limits{}, errs.ErrPassword},
		{"rar4_pw.rar", "wrong", arc.Limits{}, errs.ErrPassword},
		{"rar5_m3.rar", "", arc.Limits{MaxEntrySize: 100}, errs.ErrLimit},
	} {
		data, err := os.ReadFile(filepath.Join(testdata, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		cfg := &arc.Config{Limits: tc.lim, Password: func(*arc.Entry) (string, error) { return tc.pw, nil }}
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
		if err != nil {
			t.Fatal(err)
		}
		seen := false
		for i, e := range a.Entries() {
			if _, err := readAll(a, i); err != nil {
				seen = true
				only(t, tc.name, err, tc.want)
				msg := err.Error()
				if strings.Contains(msg, e.Name) || strings.Count(msg, "unarc:") > 1 {
					t.Errorf("%s: message %q names the entry %q or repeats the prefix", tc.name, msg, e.Name)
				}
			}
		}
		if !seen {
			t.Errorf("%s: no entry failed", tc.name)
		}
		a.Close()
	}
}
