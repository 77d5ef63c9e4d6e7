package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"time"

	"github.com/go-unarc/unarc"
)

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
	// The special files tar carries (x skips them; see specialModes).
	switch m := e.Mode.Type(); {
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeCharDevice != 0:
		return "char-device"
	case m&fs.ModeDevice != 0:
		return "block-device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeIrregular != 0:
		return "irregular"
	}
	return "file"
}

// list prints the selected entries: one JSON object per line with
// -json, else a table with a header and a totals line (-q: rows only).
func (c *cli) list(src *source, sel func(*unarc.Entry) bool, cmd *command) error {
	// One write per buffer, not per entry: a listing of a million
	// entries is a million lines.
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	table := !cmd.json && !cmd.quiet
	if table {
		fmt.Fprintf(out, listRow, "Mode", "Size", "Packed", "Modified           ", " ", "Method", "Name")
	}
	var tot listTotals
	each := func(e *unarc.Entry) error {
		if !sel(e) {
			return nil
		}
		tot.add(e)
		return printEntry(out, enc, e, cmd.json)
	}
	if src.a != nil {
		for _, e := range src.a.Entries() {
			if err := each(e); err != nil {
				return err
			}
		}
	} else {
		for {
			e, err := src.r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := each(e); err != nil {
				return err
			}
		}
	}
	if table {
		tot.print(out)
	}
	if src.a != nil && !cmd.json {
		if cm := src.a.Comment(); cm != "" {
			fmt.Fprintf(out, "comment: %s\n", cm)
		}
	}
	return nil
}

// listRow lays out a row of l: mode, size, packed size, modification
// time, "*" for encrypted, method, name.
const listRow = "%-10s %12s %12s %s%s %-12s %s\n"

// listTotals sums the listed entries for l's last line.
type listTotals struct {
	files, dirs   int
	size, packed  int64
	packedUnknown bool // some entry's packed size is unknown (solid, tarball)
}

func (t *listTotals) add(e *unarc.Entry) {
	if e.IsDir() {
		t.dirs++
	} else {
		t.files++
	}
	t.size += max(e.Size, 0)
	if e.PackedSize < 0 {
		t.packedUnknown = true
	} else {
		t.packed += e.PackedSize
	}
}

func (t *listTotals) print(w io.Writer) {
	packed := "-"
	if !t.packedUnknown {
		packed = strconv.FormatInt(t.packed, 10)
	}
	what := plural(t.files, "file", "files")
	if t.dirs > 0 {
		what += ", " + plural(t.dirs, "directory", "directories")
	}
	fmt.Fprintf(w, listRow, "", strconv.FormatInt(t.size, 10), packed, "                   ", " ", "", what)
}

// packedSize is a packed size for l: "-" when unknown (an entry of a
// solid block or of a compressed tarball has none of its own).
func packedSize(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func printEntry(w io.Writer, enc *json.Encoder, e *unarc.Entry, asJSON bool) error {
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
		return enc.Encode(je)
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
	_, err := fmt.Fprintf(w, listRow, e.Mode, strconv.FormatInt(e.Size, 10), packedSize(e.PackedSize), mod, flags, e.Method, name)
	return err
}

// jsonResult is one line of t -json: the entry, its verdict, the stored
// checksums and the computed digests.
type jsonResult struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
	Size     int64  `json:"size"`
	CRC32    string `json:"crc32,omitempty"`
	HashKind string `json:"hash_kind,omitempty"`
	Hash     string `json:"hash,omitempty"`
	BLAKE3   string `json:"blake3,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
}

func printResult(w io.Writer, enc *json.Encoder, r *unarc.VerifyResult, cmd *command) error {
	if cmd.json {
		jr := jsonResult{
			Name: r.Entry.Name, Type: entryType(r.Entry), Status: r.Status.String(), Size: r.Size,
			HashKind: r.Entry.HashKind, Hash: hex.EncodeToString(r.Entry.Hash),
			BLAKE3: hex.EncodeToString(r.BLAKE3), SHA256: hex.EncodeToString(r.SHA256),
		}
		if r.Err != nil {
			var ee *unarc.EntryError
			if errors.As(r.Err, &ee) {
				jr.Error = msg(ee.Err.Error())
			} else {
				jr.Error = msg(r.Err.Error())
			}
		}
		if r.Entry.HasCRC32 {
			jr.CRC32 = fmt.Sprintf("%08x", r.Entry.CRC32)
		}
		return enc.Encode(jr)
	}
	if cmd.digest == 0 || (r.BLAKE3 == nil && r.SHA256 == nil) {
		return nil
	}
	for _, d := range [][]byte{r.BLAKE3, r.SHA256} {
		if d != nil {
			if _, err := fmt.Fprintf(w, "%x ", d); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintf(w, " %s\n", r.Entry.Name)
	return err
}
