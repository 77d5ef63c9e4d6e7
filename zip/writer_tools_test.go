package zip

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// toolCase is a reference tool that extracts a ZIP into a directory.
type toolCase struct {
	name    string
	tool    string
	args    func(archive, dir, pw string) []string
	methods []uint16 // the methods it reads (all entries use one of them)
	aes     bool     // it reads WinZip AES
}

var zipTools = []toolCase{
	{name: "7zz", tool: "7zz", aes: true, methods: []uint16{Store, Deflate, LZMA, Zstd},
		args: func(a, d, pw string) []string {
			args := []string{"x", "-y", "-snl", "-o" + d, a}
			if pw != "" {
				args = append(args, "-p"+pw)
			}
			return args
		}},
	{name: "unzip", tool: "unzip", methods: []uint16{Store, Deflate},
		args: func(a, d, pw string) []string { return []string{"-q", a, "-d", d} }},
	{name: "bsdtar", tool: "bsdtar", aes: true, methods: []uint16{Store, Deflate, LZMA, Zstd},
		args: func(a, d, pw string) []string {
			args := []string{"-x", "-p", "-f", a, "-C", d}
			if pw != "" {
				args = append(args, "--passphrase", pw)
			}
			return args
		}},
}

// TestWriterTools writes random trees and checks that the reference
// tools extract them as written: names, types, contents, link targets,
// file modes and (in the range every tool reads) modification times.
// -short checks 3 trees, else 50.
func TestWriterTools(t *testing.T) {
	trees := 50
	if testing.Short() {
		trees = 3
	}
	for _, tc := range zipTools {
		if _, err := exec.LookPath(tc.tool); err != nil {
			t.Logf("%s not installed: skipped", tc.tool)
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(trees) {
				files := randomTree(100+seed, 25)
				if seed < 2 {
					// Past the held-back head: written with a data
					// descriptor (the sink does not seek), compressed
					// and stored.
					mt := time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)
					files = append(files,
						wfile{name: "big.txt", mode: 0o644, mod: mt, data: testutil.Words(3*headSize+100000, 7, []string{"ab", "cde"}, 20)},
						wfile{name: "big.bin", mode: 0o600, mod: mt, data: testutil.RandomBytes(headSize+3000, 8)})
				}
				for i := range files {
					files[i].method = tc.methods[int(seed+uint64(i))%len(tc.methods)]
				}
				pws := []string{""}
				if tc.aes {
					pws = append(pws, "pä55")
				}
				for _, pw := range pws {
					if pw != "" && tc.name == "bsdtar" {
						// libarchive decrypts only Store and Deflate.
						for i := range files {
							files[i].method = []uint16{Store, Deflate}[i%2]
						}
					}
					checkTool(t, tc, files, pw, seed)
				}
			}
		})
	}
}

func checkTool(t *testing.T, tc toolCase, files []wfile, pw string, seed uint64) {
	t.Helper()
	dir := t.TempDir()
	archive := filepath.Join(dir, "t.zip")
	var buf bytes.Buffer
	opts := []WriterOption{WithRandom(rand.NewChaCha8([32]byte{byte(seed)}))}
	if pw != "" {
		opts = append(opts, WithPassword(pw))
	}
	if seed%2 == 0 {
		// A sink that does not seek: data descriptors.
		zw := NewWriter(&buf, opts...)
		writeTree(t, zw, files)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		// A file: local headers patched.
		f, err := os.Create(archive)
		if err != nil {
			t.Fatal(err)
		}
		zw := NewWriter(f, opts...)
		writeTree(t, zw, files)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		b, _ := os.ReadFile(archive)
		buf.Write(b)
	}
	checkTree(t, buf.Bytes(), files, pw)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	cmd := exec.Command(tc.tool, tc.args(archive, out, pw)...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seed %d, pw %q: %s: %v\n%s", seed, pw, tc.tool, err, msg)
	}
	compareDir(t, fmt.Sprintf("%s seed %d pw %q", tc.name, seed, pw), out, files)
}

// compareDir checks the tree extracted into dir against files.
func compareDir(t *testing.T, what, dir string, files []wfile) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		st, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if st.Mode().Type() != f.mode.Type() {
			t.Errorf("%s: %s: type %v, want %v", what, f.name, st.Mode().Type(), f.mode.Type())
			continue
		}
		switch {
		case f.mode.IsDir():
			continue
		case f.mode&fs.ModeSymlink != 0:
			if target, _ := os.Readlink(p); target != string(f.data) {
				t.Errorf("%s: %s: link to %q, want %q", what, f.name, target, f.data)
			}
			continue
		}
		if st.Mode().Perm() != f.mode.Perm() {
			t.Errorf("%s: %s: mode %v, want %v", what, f.name, st.Mode().Perm(), f.mode.Perm())
		}
		if y := f.mod.Year(); y >= 1980 && y < 2038 && !st.ModTime().Equal(f.mod) {
			t.Errorf("%s: %s: modified %v, want %v", what, f.name, st.ModTime().UTC(), f.mod)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", what, err)
		} else if !bytes.Equal(b, f.data) {
			t.Errorf("%s: %s: content differs (%d bytes, want %d)", what, f.name, len(b), len(f.data))
		}
	}
	// Nothing more than the tree.
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p != dir {
			n++
		}
		return nil
	})
	if n != len(files) {
		t.Errorf("%s: %d paths extracted, want %d", what, n, len(files))
	}
}

// TestWriterZipCrypto checks ZipCrypto archives, with and without data
// descriptors, with our readers and, when installed, unzip -P and 7zz.
func TestWriterZipCrypto(t *testing.T) {
	files := randomTree(77, 30)
	for i := range files {
		files[i].method = []uint16{Store, Deflate}[i%2]
	}
	files = append(files, wfile{name: "big", mode: 0o644, method: Deflate, mod: files[0].mod,
		data: bytes.Repeat([]byte("0123456789abcdef"), headSize/8)})
	dir := t.TempDir()
	archive := filepath.Join(dir, "zc.zip")
	var buf bytes.Buffer
	zw := NewWriter(&buf, WithPassword("zc pw"), WithZipCrypto(), WithRandom(rand.NewChaCha8([32]byte{9})))
	writeTree(t, zw, files)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	checkTree(t, buf.Bytes(), files, "zc pw")
	checkStream(t, buf.Bytes(), files, "zc pw")
	os.WriteFile(archive, buf.Bytes(), 0o644)
	for _, tool := range [][]string{{"unzip", "-q", "-P", "zc pw", archive, "-d"}, {"7zz", "x", "-y", "-snl", "-pzc pw", archive, "-o"}} {
		if _, err := exec.LookPath(tool[0]); err != nil {
			t.Logf("%s not installed: skipped", tool[0])
			continue
		}
		out := filepath.Join(dir, tool[0])
		args := append([]string{}, tool[1:]...)
		if tool[0] == "7zz" {
			args[len(args)-1] += out
		} else {
			args = append(args, out)
		}
		cmd := exec.Command(tool[0], args...)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", tool[0], err, msg)
		}
		compareDir(t, tool[0]+" ZipCrypto", out, files)
	}
}
