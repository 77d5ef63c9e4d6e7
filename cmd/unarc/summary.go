package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/go-unarc/unarc"
)

// summary counts what t or x did, for the one line they print on
// success (7zz: "Everything is Ok", unrar: "All OK"): the entries, their
// bytes, and what checked them.
type summary struct {
	mu        sync.Mutex // x reports progress from its workers
	entries   int        // t: entries tested; x: files written
	bytes     int64
	verified  int      // matched a checksum of their own
	kinds     []string // those checksums' kinds, in order of first use
	stream    int      // covered by the compressed stream's checksum only
	check     string   // that checksum ("gzip CRC32"), when known
	unchecked int      // nothing stored to check them against
	noData    int      // t: directories, links (nothing to decode)
	special   int      // x: device nodes, FIFOs, sockets not created
}

func (s *summary) verify(kind string) {
	s.verified++
	if !slices.Contains(s.kinds, kind) {
		s.kinds = append(s.kinds, kind)
	}
}

// checkKind is the checksum reading e checks: its own hash, else CRC32.
func checkKind(hashKind string) string {
	if hashKind != "" {
		return hashKind
	}
	return "CRC32"
}

// result counts one result of t.
func (s *summary) result(r *unarc.VerifyResult) {
	s.entries++
	s.bytes += r.Size
	switch r.Status {
	case unarc.VerifyOK:
		s.verify(checkKind(r.Entry.HashKind))
	case unarc.VerifyStream:
		s.stream++
	case unarc.VerifyNoChecksum:
		s.unchecked++
	case unarc.VerifySkipped:
		s.noData++
	}
}

// progress counts one finished entry of x (a file: Extract reports no
// directories or links). Failures are never summed: the line is printed
// only when nothing failed.
func (s *summary) progress(p unarc.Progress) {
	if !p.Done {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case p.Skipped != "":
		s.special++
	case p.Entry.Verifiable():
		s.verify(checkKind(p.Entry.HashKind))
	case s.check != "":
		s.stream++
	default:
		s.unchecked++
	}
	if p.Skipped == "" {
		s.entries++
		s.bytes += p.EntryWritten
	}
}

// checks says what was verified and what could not be.
func (s *summary) checks() string {
	var parts []string
	if s.verified > 0 {
		parts = append(parts, fmt.Sprintf("%d verified (%s)", s.verified, strings.Join(s.kinds, ", ")))
	}
	if s.stream > 0 {
		what := "the stream's checksum"
		if s.check != "" {
			what = "the stream's " + s.check
		}
		parts = append(parts, fmt.Sprintf("%d covered by %s", s.stream, what))
	}
	if s.unchecked > 0 {
		parts = append(parts, fmt.Sprintf("%d not verifiable (no checksum stored)", s.unchecked))
	}
	if s.noData > 0 {
		parts = append(parts, fmt.Sprintf("%d without data (directories, links)", s.noData))
	}
	if s.special > 0 {
		parts = append(parts, fmt.Sprintf("%d not created (devices, FIFOs, sockets)", s.special))
	}
	return strings.Join(parts, ", ")
}

// print writes the line of cmd (t or x) to w.
func (s *summary) print(w io.Writer, cmd *command) {
	s.mu.Lock()
	defer s.mu.Unlock()
	checks := s.checks()
	if cmd.name == "t" {
		line := fmt.Sprintf("OK: %s, %s", plural(s.entries, "entry", "entries"), humanBytes(s.bytes))
		if checks != "" {
			line += ", " + checks
		}
		fmt.Fprintln(w, line)
		return
	}
	line := fmt.Sprintf("Extracted %s (%s) to %s", plural(s.entries, "file", "files"), humanBytes(s.bytes), cmd.outDir)
	if checks != "" {
		line += "; " + checks
	}
	fmt.Fprintln(w, line)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// humanBytes is n in binary units: "532 B", "12.3 MiB".
func humanBytes(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := -1
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}
