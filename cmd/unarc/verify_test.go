package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var verifyData = filepath.Join("..", "..", "testdata", "verify")

// sums reads b3sum/sha256sum output committed by testdata/verify/make.sh.
func sums(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(verifyData, name))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, file, _ := strings.Cut(l, "  ")
		m[file] = sum
	}
	return m
}

// TestTestJSONDigest: t -json -digest blake3,sha256 prints one object per
// entry whose digests are what b3sum and sha256sum print; t -digest
// without -json prints b3sum's own lines.
func TestTestJSONDigest(t *testing.T) {
	b3, sha := sums(t, "b3sums.txt"), sums(t, "sha256sums.txt")
	for _, arch := range []string{"verify-rar5.rar", "verify.7z", "verify.zip", "verify-rar4.rar"} {
		p := filepath.Join(verifyData, arch)
		code, out, errs := runCLI("t", "-json", "-digest", "blake3,sha256", p)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", arch, code, errs)
		}
		files := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r jsonResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %q: %v", arch, line, err)
			}
			if r.Type == "dir" {
				if r.Status != "skipped" {
					t.Errorf("%s: %s: status %s", arch, r.Name, r.Status)
				}
				continue
			}
			files++
			if r.Status != "ok" || r.BLAKE3 != b3[r.Name] || r.SHA256 != sha[r.Name] {
				t.Errorf("%s: %+v; want ok, blake3 %s, sha256 %s", arch, r, b3[r.Name], sha[r.Name])
			}
			if r.CRC32 == "" && r.Hash == "" {
				t.Errorf("%s: %s: no stored checksum reported", arch, r.Name)
			}
		}
		if files != 4 {
			t.Errorf("%s: %d files", arch, files)
		}
	}
	code, out, _ := runCLI("t", "-digest", "blake3", filepath.Join(verifyData, "verify-rar5.rar"))
	if code != 0 {
		t.Fatal(code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		sum, name, _ := strings.Cut(l, "  ")
		if b3[name] != sum {
			t.Errorf("line %q, b3sum says %s", l, b3[name])
		}
	}
	if code, _, _ := runCLI("t", "-digest", "md5", filepath.Join(verifyData, "verify.zip")); code != 1 {
		t.Errorf("-digest md5: exit %d, want 1", code)
	}
}

// TestTestJSONMismatch: a damaged entry is a "mismatch" object and exit 3.
func TestTestJSONMismatch(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(verifyData, "verify-store.zip"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("1\n2\n3\n4\n"))
	b[i+2] = '7'
	p := filepath.Join(t.TempDir(), "bad.zip")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("t", "-json", "-digest", "blake3", p)
	var r jsonResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if code != 3 || r.Status != "mismatch" || r.Error == "" || r.BLAKE3 != "" || !strings.Contains(errs, "numbers.txt") {
		t.Fatalf("exit %d, %+v, stderr %q", code, r, errs)
	}
}
