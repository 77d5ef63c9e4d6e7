package rar

import (
	"path/filepath"
	"strings"
)

// nextVolume returns the name of the volume after name (unrar
// NextVolumeName). New naming increments the last digit group before
// the extension, keeping its width ("a.part09.rar" → "a.part10.rar",
// "a.part99.rar" → "a.part100.rar"); an SFX first volume ("a.part1.exe")
// continues as ".rar". Old naming goes a.rar → a.r00 … a.r99 → a.s00.
func nextVolume(name string, newNaming bool) string {
	ext := filepath.Ext(name)
	base := name[:len(name)-len(ext)]
	if newNaming {
		if start, end, ok := partNumber(base); ok {
			d := []byte(base[start:end])
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
			return base[:start] + string(d) + base[end:] + ext
		}
	}
	// Old naming.
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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// partNumber finds the volume number of new-style naming in base (the
// name without its extension): the last digit run, right after "part".
func partNumber(base string) (start, end int, ok bool) {
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

// firstVolume returns the name of the first volume of the set name belongs
// to: the part number set to 1 at the same width with new naming
// ("a.part03.rar" → "a.part01.rar"), the ".rar" volume with old naming
// ("a.r04" → "a.rar").
func firstVolume(name string, newNaming bool) string {
	ext := filepath.Ext(name)
	base := name[:len(name)-len(ext)]
	if newNaming {
		if start, end, ok := partNumber(base); ok {
			d := []byte(base[start:end])
			for i := range d {
				d[i] = '0'
			}
			d[len(d)-1] = '1'
			return base[:start] + string(d) + base[end:] + ext
		}
	}
	if ext != "" && ext[1:] == strings.ToUpper(ext[1:]) && strings.ToLower(ext) != ext {
		return base + ".RAR"
	}
	return base + ".rar"
}
