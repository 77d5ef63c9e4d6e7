package unarc_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// Extract two different subsets of one Archive: each Extract call takes
// its own options (filter, overwrite policy, progress …), so nothing is
// opened twice.
func ExampleArchive_Extract_subsets() {
	a, err := unarc.OpenFile("testdata/fs/tree.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	docs, err := os.MkdirTemp("", "unarc-docs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(docs)
	top, err := os.MkdirTemp("", "unarc-top")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(top)

	// Everything under dir/, reporting each file as it is done.
	err = a.Extract(context.Background(), docs,
		unarc.WithFilter(func(e *unarc.Entry) bool { return strings.HasPrefix(e.Name, "dir/") && e.Link == unarc.LinkNone }),
		unarc.WithProgress(func(p unarc.Progress) {
			if p.Done {
				fmt.Println("dir subset:", p.Entry.Name, p.EntryWritten)
			}
		}))
	if err != nil {
		log.Fatal(err) // an *ExtractError lists every entry that failed
	}
	// Then only "hello", into another directory, keeping whatever is
	// already there.
	err = a.Extract(context.Background(), top,
		unarc.WithFilter(func(e *unarc.Entry) bool { return e.Name == "hello" }),
		unarc.WithOverwrite(unarc.OverwriteSkip))
	if err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(top, "hello"))
	fmt.Printf("%q %v\n", b, err)
	// Output:
	// dir subset: dir/sub/n.txt 7
	// dir subset: dir/a.txt 6
	// dir subset: dir/ünï-名前.txt 8
	// "hello, world\n" <nil>
}

// Open an archive that lives in any fs.FS (here the operating system's,
// but an embed.FS or a zip of zips works the same), and walk it: the
// Archive is an fs.FS itself.
func ExampleOpenFS() {
	a, err := unarc.OpenFS(os.DirFS("testdata/fs"), "tree.rar")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	err = fs.WalkDir(a, "dir", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info() // from the listing: nothing is decoded
		if err != nil {
			return err
		}
		fmt.Println(path, info.Mode().Type() == fs.ModeSymlink, info.Size())
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// dir false 0
	// dir/a.txt false 6
	// dir/sub false 0
	// dir/sub/n.txt false 7
	// dir/up true 8
	// dir/ünï-名前.txt false 8
}

// Read a compressed entry at any offset: SeekableEntry is an
// io.ReadSeeker and an io.ReaderAt over the decoded content.
func ExampleArchive_OpenSeekable() {
	a, err := unarc.OpenFile("testdata/fs/tree.7z")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	var big *unarc.Entry
	for _, e := range a.Entries() {
		if e.Name == "big.txt" {
			big = e
		}
	}
	s, err := a.OpenSeekable(big)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	line := make([]byte, 36)
	// The last line first: seeking is free, the read decodes up to it.
	if _, err := s.Seek(-int64(len(line)), io.SeekEnd); err != nil {
		log.Fatal(err)
	}
	if _, err := io.ReadFull(s, line); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", line)
	// Then back to the start: from a checkpoint or the start of the
	// stream, never out of the archive's bytes.
	if _, err := s.ReadAt(line[:26], 0); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", line[:26])
	// Output:
	// "line 2999 of the fs test text 49081\n"
	// "line 0 of the fs test text"
}

// Save an archive's index and reopen the archive from it later: no
// header is parsed again (for a compressed tarball, nothing is
// decompressed to list it).
func ExampleArchive_Index() {
	a, err := unarc.OpenFile("testdata/tar/small.tar.gz")
	if err != nil {
		log.Fatal(err)
	}
	idx, err := a.Index()
	a.Close()
	if err != nil {
		log.Fatal(err)
	}
	saved, err := idx.MarshalBinary() // store it beside the archive
	if err != nil {
		log.Fatal(err)
	}

	// Later, perhaps in another process.
	idx, err = unarc.ParseIndex(saved)
	if err != nil {
		log.Fatal(err)
	}
	b, err := unarc.OpenFile("testdata/tar/small.tar.gz", unarc.WithIndex(idx))
	if err != nil {
		log.Fatal(err) // ErrStaleIndex if the archive changed
	}
	defer b.Close()
	data, err := b.ReadFile("hello.txt")
	fmt.Println(b.Format(), len(b.Entries()), "entries;", strings.TrimSpace(string(data)), err)
	// Output:
	// tar.gz 13 entries; hello, tar <nil>
}

// Verify every entry against its stored checksum and compute a SHA-256
// of each in the same pass, as sha256sum would print it.
func ExampleArchive_Verify() {
	a, err := unarc.OpenFile("testdata/fs/tree.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	results, err := a.Verify(context.Background(),
		unarc.WithDigests(unarc.DigestSHA256),
		unarc.VerifyFilter(func(e *unarc.Entry) bool { return strings.HasPrefix(e.Name, "dir/") }))
	if err != nil {
		log.Fatal(err) // cancelled, or a limit: entry failures are results
	}
	for _, r := range results {
		if r.SHA256 == nil {
			fmt.Println(r.Status, r.Entry.Name) // a directory or a ZIP symlink: its header holds it all
			continue
		}
		fmt.Printf("%s %s…  %s (CRC32 %08x)\n", r.Status, hex.EncodeToString(r.SHA256)[:16], r.Entry.Name, r.Entry.CRC32)
	}
	// Output:
	// skipped dir/
	// skipped dir/up
	// skipped dir/sub/
	// ok 370a8c04b8a65bb4…  dir/sub/n.txt (CRC32 ebab958d)
	// ok b6a98d9ce9a2d914…  dir/a.txt (CRC32 9f606eec)
	// ok ebc45fabefbabdd0…  dir/ünï-名前.txt (CRC32 7fb6d67f)
}

// Give up opening a large compressed tarball after a deadline: listing
// it decodes the whole stream, and WithContext stops that decode.
func ExampleWithContext() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := unarc.OpenFile("testdata/tar/small.tar.gz", unarc.WithContext(ctx))
	if err != nil {
		log.Fatal(err) // context.DeadlineExceeded itself when too slow
	}
	defer a.Close()
	fmt.Println(a.Format(), a.StreamCheck())
	// Output:
	// tar.gz gzip CRC32
}
