package main

import (
	"flag"
	"strings"
)

// unglue rewrites the glued forms 7zz and unrar take, -oDIR and
// -pPASSWORD, into -o=DIR and -p=PASSWORD, which the flag package
// parses (it reads -oDIR as a flag named "oDIR" and stops). Only the
// one-letter flags in glued that fl defines are unglued, and only when
// the argument names no flag of fl itself nor of another command:
// -preserve-perms, -progress or -json stay flags, never a password or a
// directory. A flag that takes
// a value skips that value (-o -pfoo makes "-pfoo" a directory), and
// nothing after "--" is touched.
func unglue(fl *flag.FlagSet, args []string, glued ...string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, long := strings.CutPrefix(a[1:], "-")
		name, _, hasValue := strings.Cut(name, "=")
		if f := fl.Lookup(name); f != nil {
			if !hasValue && !isBoolFlag(f) && i+1 < len(args) {
				i++ // the flag's value, whatever it looks like
				out = append(out, args[i])
			}
			continue
		}
		if long || isCommandFlag(name) {
			// --name is the flag package's form, never glued; a flag
			// of another command is left for the flag package to refuse.
			continue
		}
		for _, g := range glued {
			if len(a) > 1+len(g) && strings.HasPrefix(a[1:], g) && fl.Lookup(g) != nil {
				out[len(out)-1] = "-" + g + "=" + a[1+len(g):]
				break
			}
		}
	}
	return out
}

// isBoolFlag reports whether f takes no value (-q, not -q VALUE).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
