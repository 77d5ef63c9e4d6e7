package unarc_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/go-unarc/unarc"
)

// List the entries of an archive file.
func ExampleOpenFile() {
	a, err := unarc.OpenFile("testdata/fs/tree.7z")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	for _, e := range a.Entries() {
		switch {
		case e.IsDir():
			fmt.Println(e.Name + "/")
		case e.Link == unarc.LinkSymlink:
			// 7z keeps link targets in the data: LinkTarget reads them.
			target, err := a.LinkTarget(e)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(e.Name, "->", target)
		default:
			fmt.Println(e.Name, e.Size)
		}
	}
	// Output:
	// dir/
	// dir/sub/
	// big.txt 106547
	// dir/a.txt 6
	// dir/sub/n.txt 7
	// dir/up -> ../hello
	// dir/ünï-名前.txt 8
	// dirlink -> dir
	// hello 13
	// link -> hello
}

// Read an archive as it arrives through a pipe, entry by entry.
func ExampleNewReader() {
	pr, pw := io.Pipe()
	go func() {
		f, err := os.Open("testdata/fs/tree.rar")
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		defer f.Close()
		_, err = io.Copy(pw, f)
		pw.CloseWithError(err)
	}()
	r, err := unarc.NewReader(pr)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		if e.Name != "hello" {
			continue
		}
		b, err := io.ReadAll(r) // verified against the stored checksum at the end
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %q\n", e.Name, b)
	}
	// Output:
	// hello: "hello, world\n"
}

// Extract an encrypted archive with limits and a password prompt that
// is told when an answer was wrong.
func ExampleArchive_Extract() {
	answers := []string{"guess", "test"}
	prompt := func(req unarc.PasswordRequest) (string, error) {
		if req.Wrong {
			fmt.Println("wrong password, asking again")
		}
		return answers[req.Attempt-1], nil
	}
	a, err := unarc.OpenFile("testdata/rar/rar5_pw.rar",
		unarc.WithPasswordPrompt(prompt),
		unarc.WithLimits(unarc.Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 16 << 20, MaxRatio: 1000}))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	dir, err := os.MkdirTemp("", "unarc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := a.Extract(context.Background(), dir); err != nil {
		log.Fatal(err) // an *ExtractError lists every entry that failed
	}
	b, err := os.ReadFile(filepath.Join(dir, "sub", "deeper", "n.txt"))
	fmt.Printf("%q %v\n", b, err)
	// Output:
	// wrong password, asking again
	// "nested file\n" <nil>
}

// Serve an archive over HTTP: files are seekable, so Range requests work,
// even inside a solid block.
func ExampleArchive_Open_fileServer() {
	a, err := unarc.OpenFile("testdata/fs/solid.7z")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(http.FileServer(http.FS(a)))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/z-last.txt", nil)
	req.Header.Set("Range", "bytes=5-9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, resp.Header.Get("Content-Range"))
	fmt.Printf("%q\n", body)
	// Output:
	// 206 Partial Content bytes 5-9/12
	// "entry"
}
