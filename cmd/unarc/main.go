// Command unarc lists, tests and extracts RAR, ZIP and 7z archives.
//
//	unarc l [-p PASSWORD] [-json] ARCHIVE   list entries (-json: one JSON object per line)
//	unarc t [-p PASSWORD] ARCHIVE           decode everything, verify every checksum
//	unarc x [-p PASSWORD] [-o DIR] ARCHIVE  extract into DIR (default: current directory)
//
// Exit status: 0 ok; 1 usage or other error; 2 corrupt, truncated or not
// an archive; 3 checksum mismatch; 4 missing or wrong password; 5
// unsupported method or version; 6 unsafe entry refused; 7 a limit
// exceeded. Errors go to stderr as "unarc: ARCHIVE: ENTRY: message".
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/go-unarc/unarc"
)

const usage = `usage:
  unarc l [-p PASSWORD] [-json] ARCHIVE   list entries
  unarc t [-p PASSWORD] ARCHIVE           test: decode everything, verify checksums
  unarc x [-p PASSWORD] [-o DIR] ARCHIVE  extract into DIR (default: current directory)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	cmd := args[0]
	fl := flag.NewFlagSet("unarc "+cmd, flag.ContinueOnError)
	fl.SetOutput(stderr)
	password := fl.String("p", "", "password for encrypted entries or headers")
	jsonOut := false
	outDir := "."
	switch cmd {
	case "l":
		fl.BoolVar(&jsonOut, "json", false, "one JSON object per entry and line")
	case "x":
		fl.StringVar(&outDir, "o", ".", "destination directory")
	case "t":
	default:
		fmt.Fprint(stderr, usage)
		return 1
	}
	if err := fl.Parse(args[1:]); err != nil {
		return 1
	}
	if fl.NArg() != 1 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	name := fl.Arg(0)
	var opts []unarc.Option
	if *password != "" {
		opts = append(opts, unarc.WithPassword(*password))
	}
	a, err := unarc.OpenFile(name, opts...)
	if err != nil {
		return report(stderr, name, err)
	}
	defer a.Close()
	switch cmd {
	case "l":
		err = list(a, stdout, jsonOut)
	case "t":
		err = test(a)
	case "x":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		err = a.Extract(ctx, outDir)
	}
	if err != nil {
		return report(stderr, name, err)
	}
	return 0
}

// exitCode maps an error to the contract's exit status. When several
// entries failed differently, the most specific class wins.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, unarc.ErrInsecurePath):
		return 6
	case errors.Is(err, unarc.ErrPassword), errors.Is(err, unarc.ErrPasswordRequired):
		return 4
	case errors.Is(err, unarc.ErrChecksum):
		return 3
	case errors.Is(err, unarc.ErrUnsupported):
		return 5
	case errors.Is(err, unarc.ErrLimit):
		return 7
	case errors.Is(err, unarc.ErrFormat), errors.Is(err, unarc.ErrCorrupt), errors.Is(err, unarc.ErrTruncated):
		return 2
	}
	return 1
}

// report prints one line per failed entry and returns the exit status.
func report(stderr io.Writer, name string, err error) int {
	var xe *unarc.ExtractError
	var ee *unarc.EntryError
	switch {
	case errors.As(err, &xe):
		for _, e := range xe.Errors {
			fmt.Fprintf(stderr, "unarc: %s: %s: %s\n", name, e.Entry, e.Message())
		}
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "unarc: %s: %s: %s\n", name, ee.Entry, ee.Message())
	default:
		fmt.Fprintf(stderr, "unarc: %s: %s\n", name, msg(err))
	}
	return exitCode(err)
}

func msg(err error) string {
	return strings.TrimPrefix(err.Error(), "unarc: ")
}

func test(a *unarc.Archive) error {
	var failed []*unarc.EntryError
	for _, e := range a.Entries() {
		if e.IsDir() || e.Link == unarc.LinkHardlink || e.Link == unarc.LinkJunction ||
			(e.Link == unarc.LinkSymlink && e.LinkTarget != "") {
			continue
		}
		rc, err := a.OpenEntry(e)
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			var ee *unarc.EntryError
			if !errors.As(err, &ee) {
				ee = &unarc.EntryError{Entry: e.Name, Err: err}
			}
			failed = append(failed, ee)
		}
	}
	if failed != nil {
		return &unarc.ExtractError{Errors: failed}
	}
	return nil
}

type jsonEntry struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Size       int64  `json:"size"`
	PackedSize int64  `json:"packed_size"`
	Modified   string `json:"modified,omitempty"`
	Mode       string `json:"mode"`
	LinkTarget string `json:"link_target,omitempty"`
	Method     string `json:"method,omitempty"`
	Encrypted  bool   `json:"encrypted"`
	Solid      bool   `json:"solid,omitempty"`
	CRC32      string `json:"crc32,omitempty"`
	HashKind   string `json:"hash_kind,omitempty"`
	Hash       string `json:"hash,omitempty"`
}

func entryType(e *unarc.Entry) string {
	switch {
	case e.Link == unarc.LinkSymlink:
		return "symlink"
	case e.Link == unarc.LinkHardlink:
		return "hardlink"
	case e.Link == unarc.LinkCopy:
		return "copy"
	case e.Link == unarc.LinkJunction:
		return "junction"
	case e.IsDir():
		return "dir"
	}
	return "file"
}

func list(a *unarc.Archive, w io.Writer, asJSON bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range a.Entries() {
		if asJSON {
			je := jsonEntry{
				Name: e.Name, Type: entryType(e), Size: e.Size, PackedSize: e.PackedSize,
				Mode: e.Mode.String(), LinkTarget: e.LinkTarget, Method: e.Method,
				Encrypted: e.Encrypted, Solid: e.Solid, HashKind: e.HashKind,
			}
			if !e.Modified.IsZero() {
				je.Modified = e.Modified.UTC().Format(time.RFC3339Nano)
			}
			if e.HasCRC32 {
				je.CRC32 = fmt.Sprintf("%08x", e.CRC32)
			}
			if len(e.Hash) > 0 {
				je.Hash = fmt.Sprintf("%x", e.Hash)
			}
			if err := enc.Encode(je); err != nil {
				return err
			}
			continue
		}
		mod := "                   "
		if !e.Modified.IsZero() {
			mod = e.Modified.Local().Format("2006-01-02 15:04:05")
		}
		flags := " "
		if e.Encrypted {
			flags = "*"
		}
		name := e.Name
		if e.LinkTarget != "" {
			name += " -> " + e.LinkTarget
		}
		fmt.Fprintf(w, "%s %12d %12d %s%s %-12s %s\n", e.Mode, e.Size, e.PackedSize, mod, flags, e.Method, name)
	}
	if c := a.Comment(); c != "" && !asJSON {
		fmt.Fprintf(w, "comment: %s\n", c)
	}
	return nil
}
