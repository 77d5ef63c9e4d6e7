package unarc_test

import (
	"errors"
	"os"
	"testing"

	"github.com/go-unarc/unarc"
)

var sentinels = []error{
	unarc.ErrFormat, unarc.ErrCorrupt, unarc.ErrTruncated, unarc.ErrChecksum,
	unarc.ErrPasswordRequired, unarc.ErrPassword, unarc.ErrUnsupported,
	unarc.ErrInsecurePath, unarc.ErrLimit,
}

// sentinelsMatched counts the root sentinels err matches.
func sentinelsMatched(err error) int {
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	return n
}

// checkOneSentinel fails unless err matches exactly one root sentinel,
// want.
func checkOneSentinel(t *testing.T, what string, err, want error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error; want %v", what, want)
		return
	}
	var got []error
	for _, s := range sentinels {
		if errors.Is(err, s) {
			got = append(got, s)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("%s: %v matches %v; want exactly %v", what, err, got, want)
	}
}

func openFileT(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
