package zip

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// cryptFuzzCfg is fuzzCfg with the test archives' password and room for
// 4 key derivations per archive (each API keeps its own account): a
// fuzzer-made archive of many AES entries would otherwise spend its time
// in PBKDF2, which is the limit's job to bound, and trip the watchdog
// on a loaded machine (the two inputs kept in testdata/fuzz did).
var cryptFuzzCfg = func() *arc.Config {
	c := *fuzzCfg
	c.Password = func(*arc.Entry) (string, error) { return cryptPassword, nil }
	c.Limits.MaxKDFRounds = 4 * zipcrypto.Rounds
	return &c
}()

// addCryptSeeds adds the encrypted testdata archives whose names match
// one of kinds, and the corpus ones the manifest lists with a password
// (re-encrypted with ours they would not be; they exercise the framing
// with a wrong password, which must fail cleanly).
func addCryptSeeds(f testutil.F, kinds ...string) {
	for _, p := range testutil.Glob(f, "../testdata/zip/crypt/*.zip") {
		for _, k := range kinds {
			if strings.Contains(strings.ToLower(filepath.Base(p)), k) {
				if b, err := os.ReadFile(p); err == nil {
					f.Add(b)
				}
				break
			}
		}
	}
}

// cryptFuzzBudget bounds the decoded bytes per API and input: the targets
// are about the framing, and decoding megabytes of a fuzzer-made BZip2
// stream under coverage on a loaded machine is what tripped the watchdog.
const cryptFuzzBudget = 1 << 20

// fuzzCrypt reads data through both APIs with the password: every error
// is classified (ErrPassword included), and what reads without error has
// the size the entry declares.
func fuzzCrypt(t *testing.T, data []byte) {
	defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
	ok := func(err error) bool { return classified(err) || errors.Is(err, errs.ErrPassword) }
	if a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cryptFuzzCfg)); err != nil {
		testutil.FuzzErr(t, "Open", err, ok)
	} else {
		testutil.FuzzEntries(t, a.Entries(), a.Open, cryptFuzzBudget, cryptFuzzBudget, ok)
	}
	z, err := NewReader(onlyReader{bytes.NewReader(data)}, conf.From(cryptFuzzCfg))
	if err != nil {
		testutil.FuzzErr(t, "NewReader", err, ok)
		return
	}
	defer z.Close()
	budget := int64(cryptFuzzBudget)
	for k := 0; k < 1000 && budget > 0; k++ {
		e, err := z.Next()
		if err != nil {
			if err != io.EOF && !ok(err) {
				t.Fatalf("Next: unclassified error %v", err)
			}
			return
		}
		budget -= testutil.FuzzRead(t, fmt.Sprintf("stream entry %d", k), onlyReader{z}, e.Size, cryptFuzzBudget, ok)
	}
}

// FuzzZipCrypto: the traditional PKWARE framing (12-byte header, check
// byte from the CRC or the time, descriptors), through both APIs.
func FuzzZipCrypto(f *testing.F) {
	addCryptSeeds(f, "zipcrypt")
	f.Fuzz(fuzzCrypt)
}

// FuzzWinZipAES: the WinZip AES framing (salt, verifier, data, MAC; AE-1
// and AE-2; descriptors) and PKWARE strong encryption, through both APIs.
func FuzzWinZipAES(f *testing.F) {
	addCryptSeeds(f, "aes")
	if b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "..", "shared", "corpus", "zip", "libarchive", "test_read_format_zip_encryption_data.zip")); err == nil {
		f.Add(b)
	}
	f.Fuzz(fuzzCrypt)
}
