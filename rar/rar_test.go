package rar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
	volset "github.com/go-unarc/unarc/internal/volume"
)

const testdata = "../testdata/rar"

// fileOpener opens volumes from disk for Config.OpenVolume.
func fileOpener(tb testutil.TB) arc.VolumeOpener {
	return func(name string) (io.ReaderAt, int64, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, err
		}
		return f, st.Size(), nil
	}
}

func config(tb testutil.TB, name, pw string) *arc.Config {
	cfg := &arc.Config{Name: name, OpenVolume: fileOpener(tb)}
	if pw != "" {
		cfg.Password = func(*arc.Entry) (string, error) { return pw, nil }
	}
	return cfg
}

func openPath(tb testutil.TB, name, pw string) (*Archive, error) {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	return Open(f, st.Size(), conf.From(config(tb, name, pw)))
}

var laterVolume = regexp.MustCompile(`(\.part0*[2-9][0-9]*\.rar|\.part0*1[0-9]+\.rar|\.r[0-9][0-9])$`)

// longPassword is the password of the *_longpw test archives.
const longPassword = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"

func testPassword(name string) string {
	if strings.Contains(name, "_longpw") {
		return longPassword
	}
	if strings.Contains(name, "_pw") || strings.Contains(name, "_hp") {
		return "test"
	}
	return ""
}

// readAll reads entry i, returning its content or the error.
func readAll(a *Archive, i int) ([]byte, error) {
	rc, err := a.Open(i)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// TestTestdata extracts every test archive with unrar and compares each
// entry read through Archive and through Reader with unrar's output.
func TestTestdata(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	if _, err := exec.LookPath("unrar"); err != nil {
		t.Skip("unrar not installed")
	}
	names := testutil.Glob(t, filepath.Join(testdata, "*"))
	for _, name := range names {
		if strings.HasSuffix(name, ".sh") || laterVolume.MatchString(name) {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			pw := testPassword(name)
			dir := t.TempDir()
			args := []string{"x", "-idq", "-o+", "-p-"}
			if pw != "" {
				args[3] = "-p" + pw
			}
			out, err := exec.Command("unrar", append(args, name, dir+"/")...).CombinedOutput()
			if err != nil {
				t.Fatalf("unrar: %v\n%s", err, out)
			}
			a, err := openPath(t, name, pw)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			want := map[string][]byte{}
			for i, e := range a.Entries() {
				path := filepath.Join(dir, e.Name)
				switch {
				case e.IsDir():
					if st, err := os.Stat(path); err != nil || !st.IsDir() {
						t.Errorf("%s: not a directory in unrar's output", e.Name)
					}
					continue
				case e.Mode&os.ModeSymlink != 0:
					target, err := os.Readlink(path)
					if os.IsNotExist(err) && strings.HasPrefix(e.LinkTarget, "../") {
						continue // unrar refuses links that leave the target dir
					}
					if err != nil || target != e.LinkTarget {
						t.Errorf("%s: link target %q, unrar wrote %q (%v)", e.Name, e.LinkTarget, target, err)
					}
					continue
				}
				exp, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := readAll(a, i)
				if err != nil {
					if errors.Is(err, errs.ErrUnsupported) && e.Method != "stored" {
						t.Logf("%s: %v (unpacker not linked)", e.Name, err)
						continue
					}
					t.Errorf("%s: %v", e.Name, err)
					continue
				}
				if !bytes.Equal(got, exp) {
					t.Errorf("%s: content differs from unrar's (%d vs %d bytes)", e.Name, len(got), len(exp))
				}
				if e.Size != int64(len(exp)) {
					t.Errorf("%s: Size %d, want %d", e.Name, e.Size, len(exp))
				}
				want[e.Name] = exp
			}
			// The forward-only Reader must agree.
			f, _ := os.Open(name)
			defer f.Close()
			r, err := NewReader(f, conf.From(config(t, name, pw)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := 0
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				n++
				exp, ok := want[e.Name]
				if !ok {
					continue
				}
				got, err := io.ReadAll(r)
				if e.Link == arc.LinkHardlink {
					continue // forward-only: a hard link has no content of its own
				}
				if e.Link == arc.LinkCopy && errors.Is(err, errs.ErrUnsupported) {
					continue // copies need the earlier entry's content
				}
				if err != nil {
					t.Errorf("Reader %s: %v", e.Name, err)
				} else if !bytes.Equal(got, exp) {
					t.Errorf("Reader %s: content differs", e.Name)
				}
			}
			if n != len(a.Entries()) {
				t.Errorf("Reader saw %d entries, Archive %d", n, len(a.Entries()))
			}
		})
	}
}

func TestPasswords(t *testing.T) {
	for _, name := range []string{"rar5_pw_stored.rar", "rar5_pw.rar", "rar5_pw_blake.rar", "rar5_hp_stored.rar",
		"rar5_hp_solid.rar", "rar4_pw_stored.rar", "rar4_pw.rar", "rar4_hp_stored.rar", "rar4_hp.rar"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(testdata, name)
			for _, tc := range []struct {
				pw   string
				want error
			}{{"", errs.ErrPasswordRequired}, {"wrong", errs.ErrPassword}} {
				a, err := openPath(t, path, tc.pw)
				if err == nil {
					for i, e := range a.Entries() {
						if e.IsDir() || e.Size == 0 {
							continue
						}
						_, err = readAll(a, i)
						break
					}
				}
				if !errors.Is(err, tc.want) {
					t.Errorf("password %q: got %v, want %v", tc.pw, err, tc.want)
				}
			}
		})
	}
}

func TestComment(t *testing.T) {
	for _, name := range []string{"rar5_comment.rar", "rar4_comment.rar"} {
		a, err := openPath(t, filepath.Join(testdata, name), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.ReplaceAll(a.Comment(), "\r\n", "\n"); got != "archive comment\nline two\n" {
			t.Errorf("%s: comment %q", name, got)
		}
		f, _ := os.Open(filepath.Join(testdata, name))
		r, err := NewReader(f, conf.From(&arc.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		r.Next()
		if got := strings.ReplaceAll(r.Comment(), "\r\n", "\n"); got != "archive comment\nline two\n" {
			t.Errorf("%s: Reader comment %q", name, got)
		}
		f.Close()
	}
}

// TestMissingVolume: without its later volumes a set still opens; the
// entry that continues into a missing volume fails naming it.
func TestMissingVolume(t *testing.T) {
	for _, name := range []string{"rar5_vol.part1.rar", "rar4_vol.part1.rar", "rar4_oldvol.rar"} {
		path := filepath.Join(testdata, name)
		data, _ := os.ReadFile(path)
		cfg := &arc.Config{Name: filepath.Join(t.TempDir(), name), OpenVolume: fileOpener(t)}
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(a.Entries()) != 1 || len(a.Warnings()) == 0 {
			t.Fatalf("%s: %d entries, warnings %v", name, len(a.Entries()), a.Warnings())
		}
		_, err = readAll(a, 0)
		want := volset.RARNext(name, !strings.HasSuffix(name, "oldvol.rar"))
		if !errors.Is(err, errs.ErrTruncated) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(fmt.Sprint(err), want) || !isSentinel(err) {
			t.Errorf("%s: got %v, want a missing-volume error naming %s", name, err, want)
		}
		a.Close()
	}
}

func TestSFX(t *testing.T) {
	for _, name := range []string{"rar5_m0.rar", "rar4_m0.rar"} {
		data, _ := os.ReadFile(filepath.Join(testdata, name))
		stub := bytes.Repeat([]byte("MZ stub Rar!\x1a\x07\x02 "), 20000)
		sfx := append(stub, data...)
		if !sniff(bytes.NewReader(sfx), int64(len(sfx))) {
			t.Fatalf("%s: SFX not recognised", name)
		}
		a, err := Open(bytes.NewReader(sfx), int64(len(sfx)), conf.From(&arc.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		b, err := openPath(t, filepath.Join(testdata, name), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Entries()) != len(b.Entries()) || len(a.Entries()) == 0 {
			t.Errorf("%s: %d entries behind a stub, %d without", name, len(a.Entries()), len(b.Entries()))
		}
	}
}

// TestHostile damages headers and truncates archives: every result must
// be an error wrapping a sentinel (or, for data bytes, a checksum
// error), never a panic or a hang.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, name := range []string{"rar5_m0.rar", "rar4_m0.rar", "rar5_hp_stored.rar", "rar4_hp_stored.rar"} {
		data, _ := os.ReadFile(filepath.Join(testdata, name))
		pw := testPassword(name)
		for n := 0; n < len(data); n += 1 + n/8 {
			exercise(data[:n], pw)
		}
		for i := 0; i < 200 && i < len(data); i++ {
			d := bytes.Clone(data)
			d[i] ^= 0x55
			if err := exercise(d, pw); err == nil && i < 40 {
				t.Errorf("%s: byte %d damaged, no error", name, i)
			}
		}
	}
}

func exercise(data []byte, pw string) error {
	cfg := &arc.Config{}
	if pw != "" {
		cfg.Password = func(*arc.Entry) (string, error) { return pw, nil }
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		if !isSentinel(err) {
			panic("not a sentinel error: " + err.Error())
		}
		return err
	}
	defer a.Close()
	var first error
	for i := range a.Entries() {
		if _, err := readAll(a, i); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func isSentinel(err error) bool {
	for _, s := range []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
		errs.ErrPasswordRequired, errs.ErrPassword, errs.ErrUnsupported, errs.ErrLimit} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
