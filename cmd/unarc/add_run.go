package main

import (
	"fmt"
	"os"
)

// addRun is what every writer of unarc a shares: the PATHs checked
// first, the progress line, a report per file that cannot be stored as
// it is, and the exit status at the end.
type addRun struct {
	c       *cli
	archive string
	prog    *progress
	warned  int
}

// startAdd checks that every path exists (reporting the first that does
// not: ok false) and starts the progress line unless quiet.
func (c *cli) startAdd(archive string, paths []string, quiet bool) (r *addRun, ok bool) {
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			fmt.Fprintf(c.stderr, "unarc: %s: %s\n", displayName(archive), msg(err.Error()))
			return nil, false
		}
	}
	r = &addRun{c: c, archive: archive}
	if c.stderrTTY && c.con != nil && !quiet {
		r.prog = startProgress(c.con, 0)
	}
	return r, true
}

// fileError reports a file that cannot be stored as it is: it costs
// only itself, counted for exit 1 at the end. An interrupt stops the
// walk.
func (r *addRun) fileError(name string, err error) error {
	if cerr := r.c.ctx.Err(); cerr != nil {
		return cerr
	}
	r.warned++
	r.c.note(r.prog, "unarc: %s: %s: %s", displayName(r.archive), name, msg(err.Error()))
	return nil
}

// end closes the progress line and returns the exit status for err.
func (r *addRun) end(err error) int {
	r.prog.end()
	if err != nil {
		fmt.Fprintf(r.c.stderr, "unarc: %s: %s\n", displayName(r.archive), msg(err.Error()))
		return exitCode(err)
	}
	if r.warned > 0 {
		fmt.Fprintf(r.c.stderr, "unarc: %s: written, but %d files could not be stored as they were (see above)\n", displayName(r.archive), r.warned)
		return 1
	}
	return 0
}
