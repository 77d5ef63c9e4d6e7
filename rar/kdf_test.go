package rar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// rar5Encrypted builds a RAR5 archive of n stored, encrypted one-block
// entries; entry i uses salt salts(i) and 2^lg2 KDF rounds.
func rar5Encrypted(n, lg2 int, salt func(i int) byte) []byte {
	out := append([]byte(nil), sig5...)
	out = header5Bytes(out, []byte{head5Main, 0, 0})
	for i := 0; i < n; i++ {
		rec := []byte{fx5Crypt, 0, 0, byte(lg2)} // version 0, no check value
		rec = append(rec, bytes.Repeat([]byte{salt(i)}, rarcrypto.SaltSize5)...)
		rec = append(rec, make([]byte, rarcrypto.IVSize)...)
		extra := putVint(nil, uint64(len(rec)))
		extra = append(extra, rec...)
		name := fmt.Sprintf("f%d", i)
		body := []byte{head5File}
		body = putVint(body, hfl5Extra|hfl5Data)
		body = putVint(body, uint64(len(extra)))
		body = putVint(body, 16) // data size: one AES block
		body = append(body, fhd5CRC, 1, 0, 1, 2, 3, 4, 0, 0)
		body = putVint(body, uint64(len(name)))
		body = append(body, name...)
		body = append(body, extra...)
		out = header5Bytes(out, body)
		out = append(out, make([]byte, 16)...)
	}
	return header5Bytes(out, []byte{head5End, 0, 0})
}

// rar4Encrypted builds a RAR 3.x archive of n stored, encrypted (salted)
// one-block entries.
func rar4Encrypted(n int, salt func(i int) byte) []byte {
	out := append([]byte(nil), sig4...)
	block := func(typ byte, flags uint16, rest []byte) { out = header4Bytes(out, typ, flags, rest) }
	block(head4Main, 0, make([]byte, 6))
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("f%d", i)
		var r []byte
		r = binary.LittleEndian.AppendUint32(r, 16)
		r = binary.LittleEndian.AppendUint32(r, 1)
		r = append(r, 2)
		r = binary.LittleEndian.AppendUint32(r, 0x01020304)
		r = binary.LittleEndian.AppendUint32(r, 0x58210000)
		r = append(r, 29, 0x30)
		r = binary.LittleEndian.AppendUint16(r, uint16(len(name)))
		r = binary.LittleEndian.AppendUint32(r, 0x20)
		r = append(r, name...)
		r = append(r, bytes.Repeat([]byte{salt(i)}, 8)...)
		block(head4File, hfl4LongBlk|lhdPassword|lhdSalt, r)
		out = append(out, make([]byte, 16)...)
	}
	block(head4End, 0x4000, nil)
	return out
}

// readEach opens and reads every entry, returning each one's error.
func readEach(t *testing.T, data []byte, cfg *arc.Config, more ...arc.Option) []error {
	t.Helper()
	a, err := Open(bytes.NewReader(data), int64(len(data)), append([]arc.Option{conf.From(cfg)}, more...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var out []error
	for i := range a.Entries() {
		_, err := readAll(a, i)
		out = append(out, err)
	}
	return out
}

// TestKDFBudget: every distinct (password, salt, count) derivation is
// charged once to the archive's budget; repeated salts are cached and
// free; an archive with one salt per entry stops with ErrLimit once it
// passes MaxKDFRounds — in the root's Budget and in the package's own.
func TestKDFBudget(t *testing.T) {
	pw := func(*arc.Entry) (string, error) { return "pw", nil }
	const lg2 = 10
	per5 := int64(1<<lg2 + 32)
	cases := []struct {
		name string
		data func(distinct bool) []byte
		per  int64
	}{
		{"rar5", func(d bool) []byte {
			return rar5Encrypted(8, lg2, func(i int) byte {
				if d {
					return byte(i)
				}
				return 7
			})
		}, per5},
		{"rar3", func(d bool) []byte {
			return rar4Encrypted(8, func(i int) byte {
				if d {
					return byte(i)
				}
				return 7
			})
		}, rounds3},
	}
	for _, tc := range cases {
		lim := arc.Limits{MaxKDFRounds: 3 * tc.per}
		// Own budget (no root): the 4th distinct salt passes the limit.
		errsOf := readEach(t, tc.data(true), &arc.Config{Password: pw, Limits: lim})
		for i, err := range errsOf {
			if i < 3 {
				only(t, fmt.Sprintf("%s entry %d (wrong key guessed from data)", tc.name, i), err, errs.ErrPassword)
			} else {
				only(t, fmt.Sprintf("%s entry %d", tc.name, i), err, errs.ErrLimit)
			}
		}
		// One salt for all: one derivation, well under the limit, and
		// reading it again (even every entry twice) costs nothing more.
		b := conf.NewBudget(conf.MustLimits(lim))
		for pass := 0; pass < 2; pass++ {
			for i, err := range readEach(t, tc.data(false), &arc.Config{Password: pw, Limits: lim}, conf.Budget(b)) {
				only(t, fmt.Sprintf("%s shared salt, entry %d", tc.name, i), err, errs.ErrPassword)
			}
		}
		// The root's Budget is per Open; shared here by two Opens of one
		// salt, it holds 2 derivations of the 3 allowed: one more fits.
		if err := b.ChargeKDF(tc.per); err != nil {
			t.Errorf("%s: budget after cached reads: %v", tc.name, err)
		}
		if err := b.ChargeKDF(tc.per); err == nil {
			t.Errorf("%s: budget charged less than one derivation per Open", tc.name)
		}
	}
}

// TestKDFLimitFast: an archive with one salt per entry at 2^24 rounds
// is refused by SafeLimits after a few derivations, not after hours.
func TestKDFLimitFast(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("derives 2^20-round keys")
	}
	data := rar5Encrypted(64, 20, func(i int) byte { return byte(i) })
	lim := arc.Limits{MaxKDFRounds: 3 << 20}
	t0 := time.Now()
	errsOf := readEach(t, data, &arc.Config{Password: func(*arc.Entry) (string, error) { return "pw", nil }, Limits: lim})
	limited := 0
	for _, err := range errsOf {
		if err != nil && matched(err)[0] == errs.ErrLimit {
			limited++
		}
	}
	if limited != 64-2 {
		t.Errorf("%d of 64 entries refused by the KDF limit, want 62", limited)
	}
	t.Logf("64 salts of 2^20 rounds, limit 3·2^20: %v", time.Since(t0))
}

// TestKDFHeaderKeys: the -hp header key is charged like any other, once
// for all headers (rar writes one salt), and entries that share its salt
// cost nothing more.
func TestKDFHeaderKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rounds int64 // one derivation
	}{
		{"rar4_hp.rar", rounds3},
		{"rar5_hp_stored.rar", 1<<15 + 32},
	} {
		data, err := os.ReadFile(filepath.Join(testdata, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		pw := func(*arc.Entry) (string, error) { return "test", nil }
		_, err = Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Password: pw, Limits: arc.Limits{MaxKDFRounds: tc.rounds - 1}}))
		only(t, tc.name+" under one derivation", err, errs.ErrLimit)
		for _, e := range readEach(t, data, &arc.Config{Password: pw, Limits: arc.Limits{MaxKDFRounds: tc.rounds}}) {
			if e != nil {
				t.Errorf("%s with one derivation's budget: %v", tc.name, e)
			}
		}
	}
}
