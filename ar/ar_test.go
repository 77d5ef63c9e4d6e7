package ar

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "ar", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// list is each member's name, size, time, mode, owner and content
// digest, by Open and by NewReader (which must agree).
func list(t *testing.T, data []byte, opts ...arc.Option) string {
	t.Helper()
	a, err := Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	line := func(b *strings.Builder, e *arc.Entry, content []byte) {
		h := e.Sys.(*tar.Header)
		fmt.Fprintf(b, "%s %d %d %v %d:%d %x\n", e.Name, e.Size, e.Modified.Unix(), e.Mode, h.Uid, h.Gid, content[:min(len(content), 8)])
	}
	var got strings.Builder
	for i, e := range a.Entries() {
		rc, _ := a.Open(i)
		b, err := io.ReadAll(rc)
		if err != nil || int64(len(b)) != e.Size {
			t.Fatalf("%s: %d bytes, %v", e.Name, len(b), err)
		}
		line(&got, e, b)
	}
	z, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		t.Fatal(err)
	}
	var str strings.Builder
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(z)
		if err != nil {
			t.Fatal(err)
		}
		line(&str, e, b)
	}
	if str.String() != got.String() {
		t.Errorf("Reader lists\n%s\nOpen lists\n%s", str.String(), got.String())
	}
	return got.String()
}

// TestVariants: GNU (with and without real times), BSD and .deb list
// their members, long names resolved, the tables left out.
func TestVariants(t *testing.T) {
	gnu := list(t, sample(t, "gnu.a"))
	for _, name := range []string{"gnu-u.a", "bsd.a"} {
		got := list(t, sample(t, name))
		if names(got) != names(gnu) {
			t.Errorf("%s lists\n%s\ngnu.a\n%s", name, got, gnu)
		}
		if !strings.Contains(got, "odd.txt 301 1704164645 -rw-r--r--") {
			t.Errorf("%s: odd.txt's time or mode wrong:\n%s", name, got)
		}
	}
	if names(gnu) != "a_member_with_a_long_name.o b.o odd.txt " {
		t.Errorf("gnu.a lists %q", names(gnu))
	}
	for _, z := range []string{"gz", "xz", "zst", "none"} {
		got := names(list(t, sample(t, "pkg-"+z+".deb")))
		sfx := "." + z
		if z == "none" {
			sfx = ""
		}
		if want := "debian-binary control.tar" + sfx + " data.tar" + sfx + " "; got != want {
			t.Errorf("pkg-%s.deb lists %q, want %q", z, got, want)
		}
	}
}

func names(listing string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(listing), "\n") {
		b.WriteString(strings.Fields(l)[0] + " ")
	}
	return b.String()
}

// TestDebData: with arc.WithDebData the Format opens the data tarball,
// by Open and by NewReader, for each compressor dpkg-deb writes.
func TestDebData(t *testing.T) {
	cfg := &arc.Config{DebData: true}
	for _, z := range []string{"gz", "xz", "zst", "none"} {
		data := sample(t, "pkg-"+z+".deb")
		a, err := Format.Open(bytes.NewReader(data), int64(len(data)), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, e := range a.Entries() {
			got = append(got, e.Name)
			if e.Name == "./usr/bin/hello" {
				rc, _ := a.Open(i)
				b, err := io.ReadAll(rc)
				if err != nil || string(b) != "#!/bin/sh\necho hello\n" {
					t.Errorf("%s: hello is %q, %v", z, b, err)
				}
			}
		}
		a.Close()
		if len(got) != 9 || got[3] != "./usr/bin/hello" {
			t.Errorf("%s: lists %q", z, got)
		}
		r, err := Format.NewReader(bytes.NewReader(data), cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					t.Errorf("%s: Reader: %v", z, err)
				}
				break
			}
			n++
		}
		r.Close()
		if n != 9 {
			t.Errorf("%s: Reader lists %d entries, want 9", z, n)
		}
	}
	data := sample(t, "gnu.a")
	if _, err := Format.Open(bytes.NewReader(data), int64(len(data)), cfg); !errors.Is(err, errs.ErrFormat) {
		t.Errorf("a library with DebData: %v, want ErrFormat", err)
	}
}

// TestHostile: crafted headers fail with typed errors.
func TestHostile(t *testing.T) {
	hdr := func(name string, size string) string {
		return fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10s`\n", name, "0", "0", "0", "644", size)
	}
	small := arc.WithLimits(arc.Limits{MaxHeaderMemory: 4096, MaxEntries: 3})
	for _, c := range []struct {
		name, data string
		want       error
	}{
		{"size past the end", magic + hdr("f/", "1000000") + "abc", errs.ErrTruncated},
		{"negative size", magic + hdr("f/", "-5"), errs.ErrCorrupt},
		{"long name index out of range", magic + hdr("//", "6") + "abcd/\n" + hdr("/99", "0"), errs.ErrCorrupt},
		{"long name without a table", magic + hdr("/0", "0"), errs.ErrCorrupt},
		{"long name inside another", magic + hdr("//", "12") + "abcd/\nefgh/\n" + hdr("/2", "0"), errs.ErrCorrupt},
		{"name table over the header memory", magic + hdr("//", "100000") + strings.Repeat("x", 100000), errs.ErrLimit},
		{"BSD name longer than the member", magic + hdr("#1/20", "4") + "abcd", errs.ErrCorrupt},
		{"BSD name over the header memory", magic + hdr("#1/9000", "9000") + strings.Repeat("x", 9000), errs.ErrLimit},
		{"many members", magic + strings.Repeat(hdr("f/", "0"), 10), errs.ErrLimit},
		{"bad header end", magic + strings.Repeat("x", 60), errs.ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(strings.NewReader(c.data), int64(len(c.data)), small)
			if !errors.Is(err, c.want) {
				t.Errorf("Open: %v, want %v", err, c.want)
			}
			z, err := NewReader(strings.NewReader(c.data), small)
			for err == nil {
				if _, err = z.Next(); err == nil {
					_, err = io.Copy(io.Discard, z)
				}
			}
			if !errors.Is(err, c.want) {
				t.Errorf("Reader: %v, want %v", err, c.want)
			}
		})
	}
	// Many members naming one long name of a large table: each name is
	// made once, not scanned again per member (which was quadratic).
	table := strings.Repeat("x", 1<<20) + "/\n"
	many := magic + hdr("//", fmt.Sprint(len(table))) + table + strings.Repeat(hdr("/0", "0"), 20000)
	a, err := Open(strings.NewReader(many), int64(len(many)), arc.WithLimits(arc.Limits{MaxHeaderMemory: arc.Unlimited}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(a.Entries()); n != 20000 || len(a.Entries()[0].Name) != 1<<20 {
		t.Errorf("%d entries", n)
	}

	// A member cut after whole ones: Open keeps those, with a warning.
	data := sample(t, "gnu.a")
	cut := data[:len(data)-100]
	a, err = Open(bytes.NewReader(cut), int64(len(cut)))
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Warnings(); len(a.Entries()) != 2 || len(w) != 1 || !errors.Is(w[0], errs.ErrTruncated) {
		t.Errorf("cut: %d entries, warnings %v", len(a.Entries()), w)
	}
}
