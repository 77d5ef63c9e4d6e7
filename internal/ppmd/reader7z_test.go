package ppmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fact is one row of testdata/ppmd/facts.json (written by make.sh).
type fact struct {
	Archive string `json:"archive"`
	Kind    string `json:"kind"`
	Order   int    `json:"order"`
	Mem     uint32 `json:"mem"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
}

func testdataDir() string { return filepath.Join(testutil.ModuleRoot(), "testdata", "ppmd") }

func loadFacts(t testutil.TB, kind string) []fact {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir(), "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []fact
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	var out []fact
	for _, f := range all {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s facts", kind)
	}
	return out
}

// packed7z returns the packed stream of a non-solid single-file 7z archive
// with a plain header: bytes [32, 32+NextHeaderOffset) (7zFormat.txt,
// SignatureHeader).
func packed7z(t testutil.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 32 || string(b[:6]) != "7z\xbc\xaf\x27\x1c" {
		t.Fatalf("%s: not a 7z archive", name)
	}
	next := binary.LittleEndian.Uint64(b[12:])
	if next > uint64(len(b)-32) {
		t.Fatalf("%s: bad next header offset %d", name, next)
	}
	return b[32 : 32+next]
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestReader7z(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, f := range loadFacts(t, "7z") {
		t.Run(f.Archive, func(t *testing.T) {
			packed := packed7z(t, f.Archive)
			for _, rd := range []struct {
				name string
				wrap func(io.Reader) io.Reader
			}{
				{"bytes", func(r io.Reader) io.Reader { return r }},
				{"onebyte", iotest.OneByteReader},
				{"half", iotest.HalfReader},
			} {
				z, err := NewReader7z(rd.wrap(bytes.NewReader(packed)), f.Order, f.Mem, f.Size)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(z)
				if err != nil {
					t.Fatalf("%s: after %d bytes: %v", rd.name, len(got), err)
				}
				if int64(len(got)) != f.Size || sum(got) != f.SHA256 {
					t.Fatalf("%s: got %d bytes sha256 %s, want %d %s", rd.name, len(got), sum(got), f.Size, f.SHA256)
				}
				if strings.Contains(f.Archive, "64k") && !strings.HasPrefix(f.Archive, "small") && z.m.restarts < 2 {
					t.Errorf("%s: the arena never filled; the test misses the restart path", rd.name)
				}
				z.Close()
			}
		})
	}
}

// TestReader7zReset decodes every archive with one reader, reset between
// streams, and checks the same result as fresh readers.
func TestReader7zReset(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	var z *Reader7z
	for _, f := range loadFacts(t, "7z") {
		packed := packed7z(t, f.Archive)
		var err error
		if z == nil {
			z, err = NewReader7z(bytes.NewReader(packed), f.Order, f.Mem, f.Size)
		} else {
			err = z.Reset(bytes.NewReader(packed), f.Order, f.Mem, f.Size)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(z)
		if err != nil || sum(got) != f.SHA256 {
			t.Fatalf("%s: %v, sha256 %s want %s", f.Archive, err, sum(got), f.SHA256)
		}
	}
	z.Close()
	if _, err := z.Read(make([]byte, 1)); err == nil {
		t.Fatal("Read after Close succeeded")
	}
}

// TestReader7zTruncated: every prefix of a stream must fail with a
// truncation error, never succeed or panic.
func TestReader7zTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	f := loadFacts(t, "7z")[1] // the small one
	packed := packed7z(t, f.Archive)
	for n := 0; n < len(packed); n++ {
		z, err := NewReader7z(bytes.NewReader(packed[:n]), f.Order, f.Mem, f.Size)
		if err == nil {
			_, err = io.ReadAll(z)
			z.Close()
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, errs.ErrTruncated) {
			t.Fatalf("prefix %d/%d: err %v, want truncated", n, len(packed), err)
		}
	}
}

// TestReader7zCorrupt flips bytes: the result must be an error or
// different data, never a panic or a hang.
func TestReader7zCorrupt(t *testing.T) {
	f := loadFacts(t, "7z")[1]
	packed := packed7z(t, f.Archive)
	bad := make([]byte, len(packed))
	detected := 0
	for i := 0; i < len(packed); i += 7 {
		copy(bad, packed)
		bad[i] ^= 0x55
		z, err := NewReader7z(bytes.NewReader(bad), f.Order, f.Mem, f.Size)
		var got []byte
		if err == nil {
			got, err = io.ReadAll(z)
			z.Close()
		}
		if err != nil {
			if !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) {
				t.Fatalf("flip %d: error %v is neither corrupt nor truncated", i, err)
			}
			detected++
			continue
		}
		if sum(got) == f.SHA256 {
			t.Fatalf("flip %d: decoded the original data", i)
		}
	}
	t.Logf("%d of %d flips detected by the decoder itself", detected, (len(packed)+6)/7)
}

func TestProps7z(t *testing.T) {
	for _, tc := range []struct {
		props []byte
		order int
		mem   uint32
		err   error
	}{
		{[]byte{6, 0, 0, 0, 1}, 6, 1 << 24, nil},
		{[]byte{2, 0, 8, 0, 0}, 2, 2048, nil},
		{[]byte{6, 0, 0, 0}, 0, 0, errs.ErrCorrupt},
		{[]byte{1, 0, 0, 0, 1}, 0, 0, errs.ErrUnsupported},
		{[]byte{65, 0, 0, 0, 1}, 0, 0, errs.ErrUnsupported},
		{[]byte{6, 0xff, 7, 0, 0}, 0, 0, errs.ErrUnsupported},
		{[]byte{6, 0xff, 0xff, 0xff, 0xff}, 0, 0, errs.ErrUnsupported},
	} {
		o, m, err := ParseProps7z(tc.props)
		if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) || o != tc.order || m != tc.mem {
			t.Errorf("ParseProps7z(%x) = %d, %d, %v; want %d, %d, %v", tc.props, o, m, err, tc.order, tc.mem, tc.err)
		}
	}
}

func TestNewReader7zProps(t *testing.T) {
	f := loadFacts(t, "7z")[0]
	packed := packed7z(t, f.Archive)
	props := []byte{byte(f.Order), 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(props[1:], f.Mem)
	// The limit covers the arena and the model's tables (Overhead): one
	// byte short of both is refused.
	need := int64(f.Mem) + Overhead(int64(f.Mem))
	if _, err := NewReader7zProps(bytes.NewReader(packed), props, f.Size, need-1); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("over the limit: %v, want ErrLimit", err)
	}
	z, err := NewReader7zProps(bytes.NewReader(packed), props, f.Size, need)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	got, err := io.ReadAll(z)
	if err != nil || sum(got) != f.SHA256 {
		t.Fatalf("%v, sha256 %s want %s", err, sum(got), f.SHA256)
	}
}

// TestReader7zUnknownSize: with size -1 the reader decodes until the end
// marker. 7-Zip writes no marker in 7z archives, so a real stream decodes
// correctly up to its size and then runs into garbage, which must end in
// an error (or a marker), never a panic or a hang.
func TestReader7zUnknownSize(t *testing.T) {
	f := loadFacts(t, "7z")[1]
	packed := packed7z(t, f.Archive)
	z, err := NewReader7z(bytes.NewReader(packed), f.Order, f.Mem, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	got, err := io.ReadAll(z)
	if int64(len(got)) < f.Size || sum(got[:f.Size]) != f.SHA256 {
		t.Fatalf("the first %d bytes differ (got %d bytes, %v)", f.Size, len(got), err)
	}
	if err == nil {
		t.Logf("end marker met after %d bytes", len(got))
	} else if !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("error %v is neither truncated nor corrupt", err)
	}
}

// TestReader7zMemoryMatters: in a stream whose arena fills, the memory size
// decides when the model restarts, so decoding with another size must not
// reproduce the data. This guards the allocator's exactness.
func TestReader7zMemoryMatters(t *testing.T) {
	for _, f := range loadFacts(t, "7z") {
		if !strings.Contains(f.Archive, "64k") || strings.HasPrefix(f.Archive, "small") {
			continue
		}
		for _, mem := range []uint32{f.Mem - unitSize, f.Mem + unitSize, 2 * f.Mem} {
			z, err := NewReader7z(bytes.NewReader(packed7z(t, f.Archive)), f.Order, mem, f.Size)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(z)
			z.Close()
			if err == nil && sum(got) == f.SHA256 {
				t.Errorf("%s: memory %d instead of %d decodes the same data", f.Archive, mem, f.Mem)
			}
		}
	}
}
