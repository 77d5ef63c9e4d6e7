package zip

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
)

// streamedSizes rewrites every local header of data as a writer that
// streams would: sizes 0 (with bit 3 set the sizes live only in the data
// descriptor). The central directory keeps the real sizes.
func streamedSizes(t *testing.T, data []byte) []byte {
	t.Helper()
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Clone(data)
	for i := range a.files {
		f := &a.files[i]
		o := int(f.headerOff)
		if binary.LittleEndian.Uint32(out[o:]) != sigLocal || f.flags&flagDescriptor == 0 {
			t.Fatalf("%s: no local header with a descriptor at %d", f.Name, o)
		}
		clear(out[o+18 : o+26]) // compressed and uncompressed size
	}
	return out
}

// TestCryptStreamDescriptors: encrypted entries whose sizes come only in
// data descriptors (written to a pipe: Info-ZIP from standard input with
// Zip64 descriptors; bsdtar's AES over Deflate; and bsdtar's AES over
// Store with the local sizes cleared, as a streaming writer leaves them:
// no tool here streams AES-encrypted Store) read through the forward
// Reader in whole reads, one byte at a time and WriteTo, and through the
// Archive. Stored data is not self-delimiting: the Reader scans for the
// signed descriptor and the CRC or MAC confirms it.
func TestCryptStreamDescriptors(t *testing.T) {
	var text bytes.Buffer
	text.Write(cryptInputs()["text.txt"])
	pipe := map[string][]byte{}
	for _, name := range []string{"infozip-zipcrypto-pipe-store.zip", "infozip-zipcrypto-pipe-deflate.zip"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "zip", "crypt", "pipe", name))
		if err != nil {
			t.Fatal(err)
		}
		pipe[name] = b
	}
	cfg := pwConfig(cryptPassword)
	wraps := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return onlyReader{r} },
		"one byte": iotest.OneByteReader,
	}
	for name, data := range pipe {
		want := map[string][]byte{"-": text.Bytes()}
		check := func(api string, g *got) {
			t.Helper()
			if g.openErr != nil || len(g.errs) != 0 {
				t.Errorf("%s (%s): %v %v", name, api, g.openErr, g.errs)
				return
			}
			h := sha256.Sum256(want["-"])
			if len(g.files) != 1 || !bytes.Equal(g.files["-"], h[:]) {
				t.Errorf("%s (%s): got %d entries, sizes %v", name, api, len(g.files), g.sizes)
			}
		}
		check("Archive", readArchive(data, cfg))
		for w, wrap := range wraps {
			check("Reader, "+w, readStream(data, cfg, wrap))
		}
		check("Reader, WriteTo", readStreamCopy(data, cfg, func(r io.Reader) io.Reader { return r },
			func(w io.Writer, z *Reader) (int64, error) { return z.WriteTo(w) }))
		// A wrong password is ErrPassword (the check byte comes from the
		// time with a descriptor), and the Reader still finds the end.
		if err := readEntryStream(data, "-", pwConfig("wrong")); !errors.Is(err, errs.ErrPassword) {
			t.Errorf("%s: wrong password: %v, want ErrPassword", name, err)
		}
	}

	all := cryptArchives(t)
	for _, name := range []string{"bsdtar-aes128-store.zip", "bsdtar-aes256.zip", "bsdtar-zipcrypt.zip"} {
		data := streamedSizes(t, all[name])
		checkGot(t, name+" sizes cleared (Archive)", readArchive(data, cfg))
		for w, wrap := range wraps {
			checkGot(t, name+" sizes cleared (Reader, "+w+")", readStream(data, cfg, wrap))
		}
		// Tampered data is caught (MAC or CRC), never passed as good.
		off, csize := entryData(t, data, "text.txt")
		if csize == 0 {
			t.Fatalf("%s: text.txt has no packed size in the directory", name)
		}
		bad := bytes.Clone(data)
		bad[off+csize/2] ^= 0x40
		if err := readEntryStream(bad, "text.txt", cfg); err == nil || !errors.Is(err, errs.ErrChecksum) && !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s sizes cleared, a data byte flipped: %v, want ErrChecksum or ErrCorrupt", name, err)
		}
	}
}
