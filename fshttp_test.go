package unarc_test

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
)

// TestFSHTTPRange serves solid archives with http.FileServer and checks
// Range requests on a file without an extension-derived type and one
// with: 206 and the right bytes.
func TestFSHTTPRange(t *testing.T) {
	for _, name := range []string{"fs/solid.7z", "fs/solid.rar", "fs/tree.7z", "fs/tree.rar", "fs/tree.zip"} {
		t.Run(name, func(t *testing.T) {
			a := openTestdata(t, name)
			srv := httptest.NewServer(http.FileServer(http.FS(a)))
			defer srv.Close()
			files := []string{"a-big.txt", "z-last.txt"}
			if strings.Contains(name, "tree") {
				files = []string{"hello", "big.txt", "link"}
			}
			for _, file := range files {
				want, err := fs.ReadFile(a, file)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range [][2]int{{0, 3}, {len(want) / 2, len(want) - 1}, {2, 5}} {
					req, _ := http.NewRequest("GET", srv.URL+"/"+file, nil)
					req.Header.Set("Range", "bytes="+strconv.Itoa(r[0])+"-"+strconv.Itoa(r[1]))
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusPartialContent {
						t.Fatalf("%s %v: status %d: %s", file, r, resp.StatusCode, body)
					}
					if !bytes.Equal(body, want[r[0]:r[1]+1]) {
						t.Fatalf("%s %v: %q, want %q", file, r, body, want[r[0]:r[1]+1])
					}
				}
				resp, err := http.Get(srv.URL + "/" + file)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !bytes.Equal(body, want) {
					t.Fatalf("%s: full GET status %d, %d bytes", file, resp.StatusCode, len(body))
				}
			}
		})
	}
}

// TestFSStatDecodesNothing: fs.Stat and ReadDir of the last entry of a
// large solid 7z answer from the listing, in well under the time the
// decode takes, allocating next to nothing; and Stat of an encrypted
// entry whose listing is in the clear needs no password.
func TestFSStatDecodesNothing(t *testing.T) {
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	dir := t.TempDir()
	// 2 MiB of poorly compressible text, then a 12-byte file, one block:
	// opening the small file decodes all of it (and allocates the window).
	var buf bytes.Buffer
	x := uint64(88172645463325252)
	for buf.Len() < 2<<20 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf.WriteString(strings.Repeat("x", int(x%5)))
		buf.WriteString(strconv.Itoa(int(x>>40)) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "a.bin"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "z.txt"), []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "big.7z")
	cmd := exec.Command("7zz", "a", "-bd", "-bso0", "-ms=on", "-mx1", "-mmt1", "-ptest", arch, "a.bin", "z.txt")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7zz: %v\n%s", err, out)
	}
	a, err := unarc.OpenFile(arch) // no password: the listing is in the clear
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fs.Stat(a, "z.txt") // builds the tree once
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	fi, err := fs.Stat(a, "z.txt")
	if err != nil || fi.Size() != 12 {
		t.Fatalf("Stat = %v, %v", fi, err)
	}
	ents, err := fs.ReadDir(a, ".")
	if err != nil || len(ents) != 2 {
		t.Fatalf("ReadDir = %v, %v", ents, err)
	}
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	t.Logf("Stat+ReadDir: %v, %d bytes allocated", el, m1.TotalAlloc-m0.TotalAlloc)
	if b, err := fs.ReadFile(a, "z.txt"); err == nil {
		t.Errorf("ReadFile without a password = %q", b)
	}
	if pa, err := unarc.OpenFile(arch, unarc.WithPassword("test")); err == nil {
		start = time.Now()
		b, err := fs.ReadFile(pa, "z.txt")
		t.Logf("for comparison, reading z.txt with the password (decodes the block): %v (%q, %v)", time.Since(start), b, err)
		pa.Close()
	}
	if el > 50*time.Millisecond {
		t.Errorf("Stat+ReadDir took %v", el)
	}
	if d := m1.TotalAlloc - m0.TotalAlloc; d > 16<<10 {
		t.Errorf("Stat+ReadDir allocated %d bytes", d)
	}
}

func openTestdata(t *testing.T, name string, opts ...unarc.Option) *unarc.Archive {
	t.Helper()
	a, err := unarc.OpenFile(filepath.Join("testdata", name), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestFSHTTPRangeConcurrent: concurrent Range requests into one solid
// block (several decoders of one solid stream at once).
func TestFSHTTPRangeConcurrent(t *testing.T) {
	for _, name := range []string{"fs/solid.7z", "fs/solid.rar"} {
		t.Run(name, func(t *testing.T) {
			a := openTestdata(t, name)
			if err := concurrentReads(a); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(http.FileServer(http.FS(a)))
			defer srv.Close()
			want := map[string][]byte{}
			files := []string{"a-big.txt", "z-last.txt"}
			for _, f := range files {
				b, err := fs.ReadFile(a, f)
				if err != nil {
					t.Fatal(err)
				}
				want[f] = b
			}
			var wg sync.WaitGroup
			for g := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 5 {
						f := files[(g+i)%2]
						w := want[f]
						lo := (g*1000 + i*77) % (len(w) - 2)
						hi := min(lo+500, len(w)-1)
						req, _ := http.NewRequest("GET", srv.URL+"/"+f, nil)
						req.Header.Set("Range", "bytes="+strconv.Itoa(lo)+"-"+strconv.Itoa(hi))
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						body, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, w[lo:hi+1]) {
							t.Errorf("%s %d-%d: status %d, %d bytes", f, lo, hi, resp.StatusCode, len(body))
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// concurrentReads reads every entry of a from four goroutines at once.
func concurrentReads(a *unarc.Archive) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ents := a.Entries()
			for i := range 4 {
				e := ents[(g+i)%len(ents)]
				rc, err := a.OpenEntry(e)
				if err == nil {
					_, err = io.Copy(io.Discard, rc)
					rc.Close()
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
