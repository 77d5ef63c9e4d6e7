package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-unarc/unarc"
)

// matcher selects entries by NAME or path.Match PATTERN. A pattern that
// matches a directory selects everything under it ('docs' and 'docs/*'
// both take docs/a/b.txt), as unzip does. No patterns select everything.
type matcher struct {
	pats []string
	raw  []string // the patterns as given
	hit  []bool
}

func newMatcher(pats []string) (*matcher, error) {
	m := &matcher{hit: make([]bool, len(pats)), raw: pats}
	for _, p := range pats {
		p = strings.TrimPrefix(strings.TrimSuffix(p, "/"), "./")
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("bad pattern %q: %v", p, err)
		}
		m.pats = append(m.pats, p)
	}
	return m, nil
}

func (m *matcher) all() bool { return len(m.pats) == 0 }

// match reports whether e is selected, and records which patterns hit.
func (m *matcher) match(e *unarc.Entry) bool {
	if m.all() {
		return true
	}
	name := strings.TrimPrefix(strings.TrimSuffix(e.Name, "/"), "./")
	ok := false
	for i, p := range m.pats {
		if matchPrefix(p, name) {
			m.hit[i] = true
			ok = true
		}
	}
	return ok
}

// matchPrefix reports whether p matches name or one of its parent
// directories.
func matchPrefix(p, name string) bool {
	for n := name; ; {
		if ok, _ := path.Match(p, n); ok {
			return true
		}
		i := strings.LastIndexByte(n, '/')
		if i < 0 {
			return false
		}
		n = n[:i]
	}
}

// unmatched lists the indexes of the patterns that selected nothing.
func (m *matcher) unmatched() []int {
	var out []int
	for i := range m.pats {
		if !m.hit[i] {
			out = append(out, i)
		}
	}
	return out
}

// meantAsDir reports whether pattern i of x, selecting nothing, was
// likely meant as the destination (unrar x a.rar out/, 7zz's -o
// without it): it is the last argument, no -o was given, and it ends
// in a slash or names an existing directory.
func (m *matcher) meantAsDir(i int, outSet bool) bool {
	if outSet || i != len(m.raw)-1 {
		return false
	}
	raw := m.raw[i]
	if strings.HasSuffix(raw, "/") || strings.HasSuffix(raw, string(filepath.Separator)) {
		return true
	}
	st, err := os.Stat(raw)
	return err == nil && st.IsDir()
}
