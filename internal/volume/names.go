package volume

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EmptyNameAlias is 7-Zip's name for an unnamed entry when the archive
// has no name either (kEmptyFileAlias in its extraction code).
const EmptyNameAlias = "[Content]"

// UnnamedEntry is the name 7-Zip gives an entry whose name is empty, in
// an archive whose file name is archive and whose format's extension is
// ext (".7z", ".zip"): the archive's file name without its directory and
// its extension (GetDefaultName2 in 7-Zip's OpenArchive.cpp):
// "backup.7z" gives "backup", "data.tar.7z" gives "data.tar", and a name
// without a dot gets a "~" ("backup" gives "backup~"), so the entry
// never takes the archive's own name. A split set's volume number goes
// first ("backup.7z.001" gives "backup", as 7zz lists it). Without an
// archive name the entry is EmptyNameAlias. The result holds no path
// separator; Extract still judges it as any name (".." from "...7z").
func UnnamedEntry(archive, ext string) string {
	base := archive[strings.LastIndexAny(archive, "/"+string(os.PathSeparator))+1:]
	if prefix, _, n, ok := SplitPart(base); ok && n == 1 {
		base = prefix[:len(prefix)-1]
	}
	if base == "" {
		return EmptyNameAlias
	}
	switch dot := strings.LastIndexByte(base, '.'); {
	case len(base) > len(ext) && strings.EqualFold(base[len(base)-len(ext):], ext):
		base = base[:len(base)-len(ext)]
	case dot > 0:
		base = base[:dot]
	default:
		base += "~"
	}
	if base = strings.TrimRight(base, " \t\n"); base == "" {
		return EmptyNameAlias
	}
	return base
}

// SplitPart parses the name of a byte-split part, "prefix.NNN" with three
// or more digits after the last dot (7-Zip's -v, split -d -a 3): prefix
// includes the dot, width is the number of digits and n their value. ok
// is false for any other name.
func SplitPart(name string) (prefix string, width, n int, ok bool) {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return "", 0, 0, false
	}
	ext := name[dot+1:]
	if len(ext) < 3 || len(ext) > 9 || strings.Trim(ext, "0123456789") != "" {
		return "", 0, 0, false
	}
	n, err := strconv.Atoi(ext)
	if err != nil {
		return "", 0, 0, false
	}
	return name[:dot+1], len(ext), n, true
}

// SplitName is the name of part n of a split set: n zero-padded to width
// digits; a wider number keeps all its digits ("a.999" → "a.1000", as
// 7-Zip names part 1000).
func SplitName(prefix string, width, n int) string {
	num := strconv.Itoa(n)
	if len(num) < width {
		num = strings.Repeat("0", width-len(num)) + num
	}
	return prefix + num
}

// RARNext returns the name of the RAR volume after name (unrar
// NextVolumeName). New naming increments the last digit group before
// the extension, keeping its width ("a.part09.rar" → "a.part10.rar",
// "a.part99.rar" → "a.part100.rar"); an SFX first volume ("a.part1.exe")
// continues as ".rar". Old naming goes a.rar → a.r00 … a.r99 → a.s00,
// keeping the case of the extension.
func RARNext(name string, newNaming bool) string {
	base, ext, d, rest, ok := rarParts(name, newNaming)
	if ok {
		i := len(d) - 1
		for ; i >= 0; i-- {
			if d[i] < '9' {
				d[i]++
				break
			}
			d[i] = '0'
		}
		if i < 0 {
			d = append([]byte{'1'}, d...)
		}
		if !strings.EqualFold(ext, ".rar") {
			ext = ".rar"
		}
		return base + string(d) + rest + ext
	}
	le := strings.ToLower(ext)
	if len(le) == 4 && le[1] >= 'r' && le[1] <= 'z' && isDigit(le[2]) && isDigit(le[3]) {
		n := int(le[2]-'0')*10 + int(le[3]-'0') + 1
		c := ext[1]
		if n == 100 {
			n = 0
			c++
		}
		return base + "." + string(c) + string(rune('0'+n/10)) + string(rune('0'+n%10))
	}
	r := "r"
	if len(ext) > 1 && ext[1] >= 'A' && ext[1] <= 'Z' {
		r = "R"
	}
	return base + "." + r + "00"
}

// RARFirst returns the name of the first volume of the RAR set name
// belongs to: the part number set to 1 at the same width with new naming
// ("a.part03.rar" → "a.part01.rar"), the ".rar" volume with old naming
// ("a.r04" → "a.rar", "A.R04" → "A.RAR").
func RARFirst(name string, newNaming bool) string {
	base, ext, d, rest, ok := rarParts(name, newNaming)
	if ok {
		for i := range d {
			d[i] = '0'
		}
		d[len(d)-1] = '1'
		return base + string(d) + rest + ext
	}
	if ext != "" && ext[1:] == strings.ToUpper(ext[1:]) && strings.ToLower(ext) != ext {
		return base + ".RAR"
	}
	return base + ".rar"
}

// rarParts splits a RAR volume name. With new naming and a part number
// ("a.part07.rar"): base "a.part", ext ".rar", the digits "07" (a copy,
// to edit) and rest, what stands between them and ext; ok is true.
// Otherwise base is the name without its extension ext, and ok is false.
func rarParts(name string, newNaming bool) (base, ext string, digits []byte, rest string, ok bool) {
	ext = filepath.Ext(name)
	base = name[:len(name)-len(ext)]
	if !newNaming {
		return base, ext, nil, "", false
	}
	start, end, ok := rarPartNumber(base)
	if !ok {
		return base, ext, nil, "", false
	}
	return base[:start], ext, []byte(base[start:end]), base[end:], true
}

// rarPartNumber finds the volume number of new-style naming in base (the
// name without its extension): the last digit run, right after "part".
func rarPartNumber(base string) (start, end int, ok bool) {
	end = len(base)
	for end > 0 && !isDigit(base[end-1]) {
		end--
	}
	start = end
	for start > 0 && isDigit(base[start-1]) {
		start--
	}
	return start, end, start < end && strings.HasSuffix(strings.ToLower(base[:start]), "part")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ZIPDisk is the name of disk i (from 0) of a spanned ZIP whose last disk,
// the one holding the end record, is last (APPNOTE 8.3): "a.zip" → "a.z01",
// "a.z02" …, past 99 "a.z100"; WinZip's ".zipx" sets use "a.zx01" ….
func ZIPDisk(last string, i int) string {
	base, ext := last, ""
	if k := strings.LastIndexByte(last, '.'); k > strings.LastIndexByte(last, '/') {
		base, ext = last[:k], strings.ToLower(last[k:])
	}
	if ext == ".zipx" {
		return SplitName(base+".zx", 2, i+1)
	}
	return SplitName(base+".z", 2, i+1)
}
