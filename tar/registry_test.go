package tar

import (
	"slices"
	"testing"
)

// TestIndexNames: Format.IndexNames holds every name an Archive reports
// (FormatName), whatever order the compressor files register in, so the
// root finds tar's openIndex for each.
func TestIndexNames(t *testing.T) {
	want := []string{formatName(kindNone, false)}
	for _, k := range kinds() {
		want = append(want, formatName(k, false), formatName(k, true))
	}
	for _, n := range want {
		if !slices.Contains(Format.IndexNames, n) {
			t.Errorf("Format.IndexNames %q lacks %q", Format.IndexNames, n)
		}
	}
	if len(Format.IndexNames) != len(want) {
		t.Errorf("Format.IndexNames %q, want %q", Format.IndexNames, want)
	}
}
