package rar

import "testing"

// TestMethodName pins the listing names and that the usual ones are
// constants: methodName runs for every entry an Open lists, and the
// fmt.Sprintf it used took fmt's pooled printer, which a GC drops, so an
// extraction's allocation moved from run to run.
func TestMethodName(t *testing.T) {
	for _, c := range []struct {
		version, algo, method int
		want                  string
	}{
		{5, 50, 0, "stored"},
		{5, 50, 3, "RAR5 m3"},
		{5, 50, 5, "RAR5 m5"},
		{5, 50, 7, "RAR5 m7"},
		{5, 70, 3, "RAR7 m3"},
		{4, 29, 3, "v29 m3"},
		{4, 29, 1, "v29 m1"},
		{4, 20, 5, "v20 m5"},
		{4, 15, 2, "v15 m2"},
		{4, 36, 3, "v36 m3"},
	} {
		f := file{version: c.version, algo: c.algo, method: c.method}
		if got := f.methodName(); got != c.want {
			t.Errorf("methodName(v%d algo %d m%d) = %q, want %q", c.version, c.algo, c.method, got, c.want)
		}
	}
	r5 := file{version: 5, algo: 50, method: 3}
	r4 := file{version: 4, algo: 29, method: 5}
	if n := testing.AllocsPerRun(100, func() { _ = r5.methodName(); _ = r4.methodName() }); n != 0 {
		t.Errorf("naming RAR5 m3 and v29 m5 allocates %v times", n)
	}
}
