package unarc

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// restrictiveTar is a tar (as GNU tar writes such modes) with mode 0000
// on a file and on a directory holding a file, a read-only directory
// holding a file, a 01777 directory and a setuid file.
func restrictiveTar(t *testing.T) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, typ byte, mode int64, body string) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: typ, Mode: mode, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	add("locked/", tar.TypeDir, 0, "")
	add("locked/inner.txt", tar.TypeReg, 0o644, "inner")
	add("ro/", tar.TypeDir, 0o555, "")
	add("ro/sub/", tar.TypeDir, 0o500, "")
	add("ro/sub/f.txt", tar.TypeReg, 0o444, "f")
	add("zero.txt", tar.TypeReg, 0, "no access")
	add("shared/", tar.TypeDir, 0o1777, "")
	add("suid", tar.TypeReg, 0o4755, "#!/bin/sh\n")
	tw.Close()
	return buf.Bytes()
}

// unlock makes everything under dir removable again (t.TempDir's
// cleanup cannot read a 0000 directory as a non-root user): WalkDir
// calls fn on a directory before it reads it.
func unlock(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}

// TestExtractModesNeverWidened: 0000 stays 0000 (it became 0644/0755),
// restrictive directories still get their entries and their mode at
// the end, the sticky bit of a directory is kept only with
// WithPreservePermissions, setuid never; in an Archive (1 and 8
// workers) and a Reader.
func TestExtractModesNeverWidened(t *testing.T) {
	data := restrictiveTar(t)
	um := processUmask()
	for _, preserve := range []bool{false, true} {
		for _, how := range []string{"archive", "archive8", "reader"} {
			dest := t.TempDir()
			t.Cleanup(func() { unlock(dest) })
			opts := []Option{WithWorkers(1)}
			perm := WithPreservePermissions(preserve)
			var err error
			switch how {
			case "reader":
				r, rerr := NewReader(bytes.NewReader(data), opts...)
				if rerr != nil {
					t.Fatal(rerr)
				}
				err = r.Extract(context.Background(), dest, perm)
			default:
				if how == "archive8" {
					opts = append(opts, WithWorkers(8))
				}
				a, aerr := Open(bytes.NewReader(data), int64(len(data)), opts...)
				if aerr != nil {
					t.Fatal(aerr)
				}
				err = a.Extract(context.Background(), dest, perm)
			}
			if err != nil {
				t.Fatalf("preserve=%v %s: %v", preserve, how, err)
			}
			mask := um
			if preserve {
				mask = 0
			}
			sticky := fs.FileMode(0)
			if preserve {
				sticky = fs.ModeSticky
			}
			for _, c := range []struct {
				name string
				want fs.FileMode
			}{
				{"zero.txt", 0},
				{"locked", fs.ModeDir},
				{"ro", fs.ModeDir | 0o555&^mask},
				{"ro/sub", fs.ModeDir | 0o500&^mask},
				{"shared", fs.ModeDir | sticky | 0o777&^mask},
				{"suid", 0o755 &^ mask},
			} {
				st, err := os.Lstat(filepath.Join(dest, c.name))
				if err != nil {
					t.Errorf("preserve=%v %s: %v", preserve, how, err)
					continue
				}
				if st.Mode() != c.want {
					t.Errorf("preserve=%v %s: %s is %v, want %v", preserve, how, c.name, st.Mode(), c.want)
				}
			}
			unlock(dest)
			for name, want := range map[string]string{"locked/inner.txt": "inner", "ro/sub/f.txt": "f"} {
				if b, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(b) != want {
					t.Errorf("preserve=%v %s: %s = %q, %v", preserve, how, name, b, err)
				}
			}
		}
	}

	// The parallel path (a fake archive's entries are units of their own).
	for _, workers := range []int{1, 8} {
		z := file("z.txt", "z")
		z.e.Mode = 0
		d := dir("d")
		d.e.Mode = fs.ModeDir
		dest := t.TempDir()
		t.Cleanup(func() { unlock(dest) })
		a := newFakeOpts([]Option{WithWorkers(workers)}, d, file("d/in.txt", "in"), z, file("y.txt", "y"))
		if err := a.Extract(context.Background(), dest); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]fs.FileMode{"z.txt": 0, "d": fs.ModeDir} {
			if st, err := os.Lstat(filepath.Join(dest, name)); err != nil || st.Mode() != want {
				t.Errorf("workers %d: %s: %v, want %v (%v)", workers, name, st.Mode(), want, err)
			}
		}
	}
}

// TestExtractZipDirModeKept: a ZIP directory whose Unix mode is 040000
// (or 040600) is extracted with the file under it and ends 0000 (0600
// less the umask); the zip reader turned 040000 into 0755 and 040644
// into 0755 before Extract saw them.
func TestExtractZipDirModeKept(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct {
		name string
		mode uint32
		body string
	}{
		{"locked/", 0o040000, ""},
		{"locked/in.txt", 0o100644, "in"},
		{"rw/", 0o040600, ""},
		{"rw/f.txt", 0o100644, "f"},
		{"r/", 0o040644, ""},
	} {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, CreatorVersion: 3<<8 | 20, ExternalAttrs: e.mode << 16}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	um := processUmask()
	for _, preserve := range []bool{false, true} {
		a, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		dest := t.TempDir()
		t.Cleanup(func() { unlock(dest) })
		if err := a.Extract(context.Background(), dest, WithPreservePermissions(preserve)); err != nil {
			t.Fatalf("preserve=%v: %v", preserve, err)
		}
		mask := um
		if preserve {
			mask = 0
		}
		for name, want := range map[string]fs.FileMode{
			"locked": fs.ModeDir,
			"rw":     fs.ModeDir | 0o600&^mask,
			"r":      fs.ModeDir | 0o644&^mask,
		} {
			if st, err := os.Lstat(filepath.Join(dest, name)); err != nil || st.Mode() != want {
				t.Errorf("preserve=%v: %s: %v, want %v (%v)", preserve, name, st.Mode(), want, err)
			}
		}
		unlock(dest)
		for name, want := range map[string]string{"locked/in.txt": "in", "rw/f.txt": "f"} {
			if b, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(b) != want {
				t.Errorf("preserve=%v: %s = %q, %v", preserve, name, b, err)
			}
		}
	}
}
