package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/go-unarc/unarc"
)

// matcher selects entries by NAME or path.Match PATTERN. A pattern that
// matches a directory selects everything under it ('docs' and 'docs/*'
// both take docs/a/b.txt), as unzip does. No patterns select everything.
type matcher struct {
	pats []string
	hit  []bool
}

func newMatcher(pats []string) (*matcher, error) {
	m := &matcher{hit: make([]bool, len(pats))}
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

// unmatched lists the patterns that selected nothing.
func (m *matcher) unmatched() []string {
	var out []string
	for i, p := range m.pats {
		if !m.hit[i] {
			out = append(out, p)
		}
	}
	return out
}
