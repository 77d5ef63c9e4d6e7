package rar

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestTruncatedEverywhere cuts archives at every length in their last
// few hundred bytes (end block, last header, last data) and at a spread
// of earlier lengths: through both APIs the outcome is an error matching
// only ErrTruncated, or success with a warning matching ErrTruncated —
// never silence, never ErrCorrupt.
func TestTruncatedEverywhere(t *testing.T) {
	// Every cut derives the same keys: share them so the test stays fast.
	sharedKeys = new(sync.Map)
	defer func() { sharedKeys = nil }()
	for _, name := range []string{"rar4_m3.rar", "rar5_m3.rar", "rar4_m0.rar", "rar5_m0.rar", "rar4_solid.rar",
		"rar5_solid.rar", "rar4_pw.rar", "rar5_pw.rar", "rar5_blake.rar", "rar4_rr.rar", "rar5_rr.rar",
		"rar4_hp.rar", "rar5_hp_solid.rar", "rar4_hp_stored.rar", "rar5_hp_stored.rar", "rar4_comment.rar", "rar5_comment.rar",
		"rar4_links.rar", "rar5_links.rar", "rar5_qo.rar", "rar5_pw_blake.rar"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Fatal(err)
		}
		pw := testPassword(name)
		var cuts []int
		for n := len(data) - 1; n > len(data)-200 && n > 20; n -= min(cutStep, 3) {
			cuts = append(cuts, n)
		}
		for n := 30; n < len(data)-200; n += 331 {
			cuts = append(cuts, n)
		}
		for _, n := range cuts {
			for api, verdict := range map[string]func([]byte, string) (error, []error){"Archive": archiveVerdict, "Reader": readerVerdict} {
				err, ws := verdict(data[:n], pw)
				if err != nil {
					only(t, name+" cut to "+itoa(n)+" via "+api, err, errs.ErrTruncated)
				} else if !hasWarning(ws, errs.ErrTruncated) {
					t.Errorf("%s cut to %d of %d via %s: no error and no truncation warning (%v)", name, n, len(data), api, ws)
				}
			}
		}
		// The whole archive has no truncation warning.
		for api, verdict := range map[string]func([]byte, string) (error, []error){"Archive": archiveVerdict, "Reader": readerVerdict} {
			if err, ws := verdict(data, pw); err != nil || hasWarning(ws, errs.ErrTruncated) {
				t.Errorf("%s whole via %s: %v, warnings %v", name, api, err, ws)
			}
		}
	}
}

// TestTruncatedEveryByte cuts unencrypted RAR4 and RAR5 archives (plain,
// solid, with a packed comment) at every byte: through both APIs each
// cut is exactly ErrTruncated or a success with an ErrTruncated warning.
// The Reader once reported a v29 stream cut mid-data as ErrCorrupt (the
// decoder saw a bad distance before the end of input); an archive cut
// right after a comment header or after its main header passed silently.
func TestTruncatedEveryByte(t *testing.T) {
	for _, name := range []string{"rar4_m3.rar", "rar4_solid.rar", "rar5_m3.rar", "rar5_solid.rar", "rar4_comment.rar", "rar5_comment.rar"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for n := 8; n < len(data) && bad < 5; n += cutStep {
			for api, verdict := range map[string]func([]byte, string) (error, []error){"Archive": archiveVerdict, "Reader": readerVerdict} {
				err, ws := verdict(data[:n], "")
				if err != nil {
					if m := matched(err); len(m) != 1 || m[0] != errs.ErrTruncated {
						bad++
						t.Errorf("%s cut to %d via %s: %v", name, n, api, err)
					}
				} else if !hasWarning(ws, errs.ErrTruncated) {
					bad++
					t.Errorf("%s cut to %d via %s: no error, no truncation warning", name, n, api)
				}
			}
		}
	}
}

// TestTruncatedEncrypted: the same for encrypted archives at every byte,
// -hp included: a cut inside the first encrypted header, before any
// header has proven the password, is still ErrTruncated when the header
// decrypts to what rar writes; a wrong password on the whole archive
// stays exactly ErrPassword.
func TestTruncatedEncrypted(t *testing.T) {
	sharedKeys = new(sync.Map)
	defer func() { sharedKeys = nil }()
	for _, name := range []string{"rar4_hp.rar", "rar4_pw.rar", "rar5_pw.rar", "rar5_hp_stored.rar"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Fatal(err)
		}
		for api, verdict := range map[string]func([]byte, string) (error, []error){"Archive": archiveVerdict, "Reader": readerVerdict} {
			err, _ := verdict(data, "wrong")
			only(t, name+" wrong password via "+api, err, errs.ErrPassword)
		}
		step := cutStep
		if len(data) > 6000 {
			step *= 7
		}
		bad := 0
		for n := 8; n < len(data) && bad < 5; n += step {
			for api, verdict := range map[string]func([]byte, string) (error, []error){"Archive": archiveVerdict, "Reader": readerVerdict} {
				err, ws := verdict(data[:n], "test")
				if err != nil {
					if m := matched(err); len(m) != 1 || m[0] != errs.ErrTruncated {
						bad++
						t.Errorf("%s cut to %d via %s: %v", name, n, api, err)
					}
				} else if !hasWarning(ws, errs.ErrTruncated) {
					bad++
					t.Errorf("%s cut to %d via %s: no error, no truncation warning", name, n, api)
				}
			}
		}
	}
}

// cutStep is 1 (every byte) except under the race detector, where the
// exhaustive cuts would take minutes: there a spread of cuts is enough.
var cutStep = map[bool]int{false: 1, true: 29}[raceEnabled]
