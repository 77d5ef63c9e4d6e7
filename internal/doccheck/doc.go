// Package doccheck holds the test that compiles every Go block of the
// README and of docs/*.md, so the documentation cannot drift from the
// API it teaches. It has no code of its own.
//
// A fenced block whose info string is "go" is one of two kinds:
//
//   - a whole file: its first line starts with "package". It is
//     compiled as it stands (a package main with its imports).
//   - a fragment: its first line is "// fragment" or
//     "// fragment: a *unarc.Archive, ctx context.Context". It becomes the
//     body of a function whose parameters are the names after the colon,
//     in a package main whose imports are added from the package names
//     the fragment and its parameters use (unarc, sevenzip, lzma, fmt,
//     io, fs, …; see knownImports in the test).
//
// Any other Go block fails the test: mark it, or fence it as text. The
// blocks are written to a temporary directory inside this package (its
// name starts with "_", so ./... patterns never see it) and checked with
// go vet, which type-checks them; //line directives make every error
// point at the Markdown file and line. The test needs the go command and
// skips under -short.
//
// TestDocLinks checks the relative links of the same files and of
// CHANGELOG.md: each names a file inside the repository (a clone has
// nothing beside it) and, after a #, a heading of that file.
package doccheck
