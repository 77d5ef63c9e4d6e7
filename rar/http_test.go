package rar_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-unarc/unarc"
)

// TestHTTPFSSolid serves a solid RAR through http.FS and fetches its text
// entries with 40 parallel GETs: every body is complete and right (solid
// readers used to cancel each other and truncate most bodies).
func TestHTTPFSSolid(t *testing.T) {
	a, err := unarc.OpenFile("../testdata/rarcontract/solid8.rar")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want := map[string][32]byte{}
	var names []string
	for _, e := range a.Entries() {
		// .txt only: http.ServeContent sniffs (and seeks) other types.
		if e.IsDir() || !strings.HasSuffix(e.Name, ".txt") || e.Size == 0 {
			continue
		}
		f, err := a.Open(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		want[e.Name] = sha256.Sum256(b)
		names = append(names, e.Name)
	}
	if len(names) < 2 {
		t.Fatalf("only %d text entries", len(names))
	}
	srv := httptest.NewServer(http.FileServerFS(a))
	defer srv.Close()
	var wg sync.WaitGroup
	errc := make(chan error, 40)
	for g := 0; g < 40; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := names[g%len(names)]
			resp, err := http.Get(srv.URL + "/" + name)
			if err != nil {
				errc <- err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 || sha256.Sum256(b) != want[name] {
				errc <- fmt.Errorf("GET %s: status %d, %d bytes, %v", name, resp.StatusCode, len(b), err)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}
