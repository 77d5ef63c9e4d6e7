package unarc_test

import (
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// prompt records every request and answers from a script (the last
// answer repeats).
type prompt struct {
	mu      sync.Mutex
	answers []string
	err     error
	reqs    []unarc.PasswordRequest
}

func (p *prompt) ask(r unarc.PasswordRequest) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, r)
	if p.err != nil {
		return "", p.err
	}
	i := min(len(p.reqs)-1, len(p.answers)-1)
	return p.answers[i], nil
}

func readEntries(t *testing.T, a *unarc.Archive) error {
	t.Helper()
	es := a.Entries()
	return testutil.DiscardEach(len(es), func(i int) bool { return !es[i].IsDir() && es[i].Size != 0 }, func(i int) (io.ReadCloser, error) { return a.OpenEntry(es[i]) })
}

// TestPasswordAskedOnce: one answer serves every entry, read three times
// (RAR used to ask on every OpenEntry: 6 calls for 2 entries read 3
// times), and for 7z and RAR with encrypted headers.
func TestPasswordAskedOnce(t *testing.T) {
	for _, c := range []struct{ file, pw string }{
		{"rar/rar5_pw.rar", "test"},
		{"rar/rar4_pw.rar", "test"},
		{"rar/rar5_hp_solid.rar", "test"},
		{"7z/aes_lzma2_he.7z", "secret"},
		{"7z/aes_copy.7z", "secret"},
	} {
		t.Run(c.file, func(t *testing.T) {
			p := &prompt{answers: []string{c.pw}}
			a := openTestdata(t, c.file, unarc.WithPasswordPrompt(p.ask))
			for range 3 {
				if err := readEntries(t, a); err != nil {
					t.Fatal(err)
				}
			}
			if len(p.reqs) != 1 || p.reqs[0].Attempt != 1 || p.reqs[0].Wrong {
				t.Fatalf("asked %d times: %+v; want once, attempt 1", len(p.reqs), p.reqs)
			}
		})
	}
}

// TestPasswordRetry: a wrong answer is reported back (Wrong, Attempt 2)
// and the right one then opens, for entries and for encrypted headers.
func TestPasswordRetry(t *testing.T) {
	for _, c := range []struct{ file, pw string }{
		{"rar/rar5_pw.rar", "test"},        // entry password check value
		{"rar/rar5_hp_solid.rar", "test"},  // encrypted headers
		{"7z/aes_lzma2_he.7z", "secret"},   // encrypted 7z header
		{"rar/rar5_pw_stored.rar", "test"}, // stored data, still checked
		{"rar/rar5_hp_stored.rar", "test"}, // headers, stored data
		{"7z/tiny_aes_he.7z", "secret"},    // a tiny encrypted header
	} {
		t.Run(c.file, func(t *testing.T) {
			p := &prompt{answers: []string{"nope", c.pw}}
			a := openTestdata(t, c.file, unarc.WithPasswordPrompt(p.ask))
			if err := readEntries(t, a); err != nil {
				t.Fatal(err)
			}
			if len(p.reqs) != 2 || !p.reqs[1].Wrong || p.reqs[1].Attempt != 2 || p.reqs[0].Wrong {
				t.Fatalf("requests %+v; want a first ask and one retry marked wrong", p.reqs)
			}
		})
	}
}

// TestPasswordTriesBounded: always wrong stops after three answers
// answers with ErrPassword; a fixed WithPassword is not retried.
func TestPasswordTriesBounded(t *testing.T) {
	for _, file := range []string{"rar/rar5_hp_solid.rar", "rar/rar5_pw.rar"} {
		p := &prompt{answers: []string{"nope"}}
		a, err := unarc.OpenFile(filepath.Join("testdata", file), unarc.WithPasswordPrompt(p.ask))
		if err == nil {
			err = readEntries(t, a)
			a.Close()
		}
		if !errors.Is(err, unarc.ErrPassword) {
			t.Fatalf("%s: %v, want ErrPassword", file, err)
		}
		if len(p.reqs) != 3 {
			t.Errorf("%s: asked %d times, want %d", file, len(p.reqs), 3)
		}
		if p.reqs[len(p.reqs)-1].Attempt != 3 {
			t.Errorf("%s: last attempt %d", file, p.reqs[len(p.reqs)-1].Attempt)
		}
	}
	_, err := unarc.OpenFile("testdata/rar/rar5_hp_solid.rar", unarc.WithPassword("nope"))
	if !errors.Is(err, unarc.ErrPassword) {
		t.Fatalf("WithPassword wrong: %v", err)
	}
}

// TestPasswordCallbackAborts: an error from the callback aborts the
// operation that asked, matching ErrAborted and the callback's error (and
// none of the bad-input sentinels), and is not asked again — Extract
// does not prompt once per remaining entry.
func TestPasswordCallbackAborts(t *testing.T) {
	stop := errors.New("user cancelled")
	p := &prompt{err: stop}
	a := openTestdata(t, "rar/rar5_pw.rar", unarc.WithPasswordPrompt(p.ask))
	err := readEntries(t, a)
	if !errors.Is(err, unarc.ErrAborted) || !errors.Is(err, stop) {
		t.Fatalf("OpenEntry: %v; want ErrAborted wrapping the callback's error", err)
	}
	if n := sentinelsMatched(err); n != 0 {
		t.Errorf("abort matches %d input sentinels: %v", n, err)
	}
	var ee *unarc.EntryError
	if !errors.As(err, &ee) {
		t.Errorf("abort is not an EntryError: %v", err)
	}
	err = a.Extract(t.Context(), t.TempDir())
	if !errors.Is(err, unarc.ErrAborted) {
		t.Errorf("Extract: %v; want ErrAborted", err)
	}
	if len(p.reqs) != 1 {
		t.Errorf("callback asked %d times; want once", len(p.reqs))
	}

	// Headers: Open fails with the callback's error.
	p = &prompt{err: stop}
	_, err = unarc.OpenFile("testdata/7z/aes_lzma2_he.7z", unarc.WithPasswordFunc(func(e *unarc.Entry) (string, error) {
		return p.ask(unarc.PasswordRequest{Entry: e})
	}))
	if !errors.Is(err, unarc.ErrAborted) || !errors.Is(err, stop) || len(p.reqs) != 1 {
		t.Fatalf("Open: %v after %d asks", err, len(p.reqs))
	}
}

// TestPasswordReader: the forward Reader caches the answer too.
func TestPasswordReader(t *testing.T) {
	p := &prompt{answers: []string{"test"}}
	f := openFileT(t, "testdata/rar/rar5_pw.rar")
	r, err := unarc.NewReader(f, unarc.WithPasswordPrompt(p.ask))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	testutil.DrainStream(t, r.Next, r)
	if len(p.reqs) != 1 {
		t.Errorf("asked %d times", len(p.reqs))
	}
}

// TestPasswordConcurrent: entries opened from several goroutines at once
// share one answer; the prompt is asked once.
func TestPasswordConcurrent(t *testing.T) {
	p := &prompt{answers: []string{"test"}}
	a := openTestdata(t, "rar/rar5_pw.rar", unarc.WithPasswordPrompt(p.ask))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := readEntries(t, a); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(p.reqs) != 1 {
		t.Errorf("asked %d times", len(p.reqs))
	}
}

// TestPasswordForgottenAfterDataCheck: RAR 2.9 encryption has no check
// value, so a wrong answer fails only at the data's end (ErrPassword);
// the answer is then forgotten and the next OpenEntry asks again, marked
// wrong.
func TestPasswordForgottenAfterDataCheck(t *testing.T) {
	p := &prompt{answers: []string{"nope", "test"}}
	a := openTestdata(t, "rar/rar4_pw.rar", unarc.WithPasswordPrompt(p.ask))
	var e *unarc.Entry
	for _, x := range a.Entries() {
		if x.Name == "text.txt" {
			e = x
		}
	}
	read := func() error {
		rc, err := a.OpenEntry(e)
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err
	}
	if err := read(); !errors.Is(err, unarc.ErrPassword) {
		t.Fatalf("first read: %v, want ErrPassword", err)
	}
	if err := read(); err != nil {
		t.Fatalf("second read: %v", err)
	}
	if len(p.reqs) != 2 || !p.reqs[1].Wrong || p.reqs[1].Attempt != 2 {
		t.Fatalf("requests %+v", p.reqs)
	}
}

// TestPasswordReaderForgets: in a stream, a RAR 2.9 entry whose data
// check rejects the answer makes the next entry ask again.
func TestPasswordReaderForgets(t *testing.T) {
	p := &prompt{answers: []string{"nope", "test"}}
	r, err := unarc.NewReader(openFileT(t, "testdata/rar/rar4_pw.rar"), unarc.WithPasswordPrompt(p.ask))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var errsSeen, ok int
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.IsDir() || e.Size == 0 {
			continue
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			if !errors.Is(err, unarc.ErrPassword) {
				t.Fatalf("%s: %v", e.Name, err)
			}
			errsSeen++
		} else {
			ok++
		}
	}
	if errsSeen != 1 || ok == 0 || len(p.reqs) != 2 || !p.reqs[1].Wrong {
		t.Fatalf("%d failed, %d read, requests %+v; want one failure, then a retry marked wrong", errsSeen, ok, p.reqs)
	}
}
