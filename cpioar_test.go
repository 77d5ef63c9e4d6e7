package unarc_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
)

// TestCpioArMatchBsdtar extracts every cpio and ar test archive with
// bsdtar and with both APIs and compares the trees (compareTrees: the
// same files, bytes, times and symlink targets; FIFOs listed, never
// created) and the permission bits of files and directories. Device
// nodes, which bsdtar makes as root and unarc never does, are left out
// of bsdtar's tree. bsdtar stops at a cpio archive's trailer: the
// concatenated sample is compared with both parts extracted in turn.
// The compressed cpio archives are read through tar's decompressors.
// A .deb opened WithDebData is compared with bsdtar's extraction of its
// data tarball.
func TestCpioArMatchBsdtar(t *testing.T) {
	if _, err := exec.LookPath("bsdtar"); err != nil {
		t.Skip("bsdtar not installed")
	}
	bsdtar := func(t *testing.T, dir string, files ...string) {
		for _, f := range files {
			// bsdtar lists ar's "/" and "//" tables and fails to make
			// them; the members are extracted all the same.
			exec.Command("bsdtar", "-xf", f, "-C", dir).Run()
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0 {
				os.Remove(p)
			}
			return nil
		})
	}
	cases := []struct {
		file string
		ref  []string
		opts []unarc.Option
	}{
		{file: "cpio/bin.cpio"}, {file: "cpio/bin-be.cpio"}, {file: "cpio/odc.cpio"},
		{file: "cpio/newc.cpio"}, {file: "cpio/crc.cpio"},
		{file: "cpio/concat.cpio", ref: []string{"cpio/newc.cpio", "cpio/odc.cpio"}},
		{file: "cpio/newc.cpio.gz"}, {file: "cpio/newc.cpio.bz2"}, {file: "cpio/newc.cpio.xz"},
		{file: "cpio/newc.cpio.zst"}, {file: "cpio/newc.cpio.lzma"},
		{file: "ar/gnu.a"}, {file: "ar/gnu-u.a"}, {file: "ar/bsd.a"},
		{file: "ar/pkg-gz.deb"}, {file: "ar/pkg-none.deb"},
	}
	for _, z := range []string{"gz", "xz", "zst", "none"} {
		cases = append(cases, struct {
			file string
			ref  []string
			opts []unarc.Option
		}{file: "ar/pkg-" + z + ".deb", opts: []unarc.Option{unarc.WithDebData()}})
	}
	for _, c := range cases {
		name := c.file
		if c.opts != nil {
			name += " (deb data)"
		}
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("testdata", c.file)
			want := t.TempDir()
			refs := []string{file}
			for _, r := range c.ref {
				refs[0] = filepath.Join("testdata", r)
				bsdtar(t, want, refs...)
			}
			if c.ref == nil && c.opts == nil {
				bsdtar(t, want, file)
			}
			if c.opts != nil {
				// The data tarball, taken out of the package by bsdtar.
				pkg := t.TempDir()
				bsdtar(t, pkg, file)
				data, _ := filepath.Glob(filepath.Join(pkg, "data.tar*"))
				if len(data) != 1 {
					t.Fatalf("bsdtar took %q out of the package", data)
				}
				bsdtar(t, want, data[0])
			}
			a, err := unarc.OpenFile(file, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := t.TempDir()
			if err := a.Extract(context.Background(), got); err != nil {
				t.Fatal(err)
			}
			a.Close()
			compareTrees(t, want, got)
			compareModes(t, want, got)

			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := unarc.NewReader(struct{ io.Reader }{f}, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got2 := t.TempDir()
			if err := r.Extract(context.Background(), got2); err != nil {
				t.Fatal(err)
			}
			r.Close()
			compareTrees(t, want, got2)
			compareModes(t, want, got2)
		})
	}
}

// compareModes checks the permission bits (rwx, not setuid, which
// Extract drops) of the regular files and directories under got
// against those under want.
func compareModes(t *testing.T, want, got string) {
	t.Helper()
	filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		rel, _ := filepath.Rel(got, p)
		wi, werr := os.Lstat(filepath.Join(want, rel))
		gi, gerr := os.Lstat(p)
		if werr == nil && gerr == nil && wi.Mode().Perm() != gi.Mode().Perm() {
			t.Errorf("%s: mode %v, bsdtar %v", rel, gi.Mode().Perm(), wi.Mode().Perm())
		}
		return nil
	})
}

// TestCompressedCpio: a cpio archive in each compressor lists as
// cpio.gz … with the stream's check, entries read in any order (a later
// one first decodes the stream again) and match the plain archive's, and
// PreferReader sends it to the forward Reader, which lists the same.
func TestCompressedCpio(t *testing.T) {
	plain, err := unarc.OpenFile("testdata/cpio/newc.cpio")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	want := map[string]string{}
	for _, e := range plain.Entries() {
		b, err := plain.ReadFile(e.Name)
		if err == nil {
			want[e.Name] = string(b)
		}
	}
	for ext, check := range map[string]string{"gz": "gzip CRC32", "bz2": "bzip2 CRC32", "xz": "xz CRC64", "zst": "zstd XXH64", "lzma": ""} {
		t.Run(ext, func(t *testing.T) {
			file := "testdata/cpio/newc.cpio." + ext
			a, err := unarc.OpenFile(file)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Format() != "cpio."+ext || a.StreamCheck() != check {
				t.Errorf("Format %q, StreamCheck %q", a.Format(), a.StreamCheck())
			}
			ents := a.Entries()
			for i := len(ents) - 1; i >= 0; i-- {
				e := ents[i]
				w, ok := want[e.Name]
				if !ok || e.Link != unarc.LinkNone {
					continue
				}
				b, err := a.ReadFile(e.Name)
				if err != nil || string(b) != w {
					t.Errorf("%s: %d bytes, %v", e.Name, len(b), err)
				}
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			if !unarc.PreferReader(f, st.Size()) {
				t.Errorf("PreferReader is false")
			}
		})
	}
}
