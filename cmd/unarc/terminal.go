package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/go-unarc/unarc"
)

// console is the terminal the user sits at, when there is one: prompts
// read from it (without echo for passwords) and write to stderr.
type console struct {
	tty    *os.File // nil: no terminal, never prompt
	in     *bufio.Reader
	stderr io.Writer
	mu     sync.Mutex // one writer at a time on stderr (progress vs prompts)
}

func (c *console) interactive() bool { return c != nil && c.tty != nil }

// readPassword asks for a password without echo.
func (c *console) readPassword(prompt string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.stderr, "\r\x1b[K%s", prompt)
	b, err := term.ReadPassword(int(c.tty.Fd()))
	fmt.Fprintln(c.stderr)
	return string(b), err
}

// ask prints a question and reads one answer line.
func (c *console) ask(prompt string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.stderr, "\r\x1b[K%s", prompt)
	if c.in == nil {
		c.in = bufio.NewReader(c.tty)
	}
	line, err := c.in.ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	return strings.TrimRight(line, "\r\n")
}

// passwordFunc prompts once when the archive first needs a password and
// gives the same answer to every later entry; forget drops it after it
// proved wrong, so the next attempt prompts again.
type passwordFunc struct {
	con  *console
	mu   sync.Mutex
	pw   string
	have bool
}

func (p *passwordFunc) get(e *unarc.Entry) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.have {
		prompt := "Password: "
		if e != nil {
			prompt = fmt.Sprintf("Password for %s: ", e.Name)
		}
		pw, err := p.con.readPassword(prompt)
		if err != nil {
			return "", err
		}
		p.pw, p.have = pw, true
	}
	return p.pw, nil
}

func (p *passwordFunc) forget() {
	p.mu.Lock()
	p.have = false
	p.mu.Unlock()
}

// conflicts decides existing regular files for the CLI: a fixed policy,
// or a question per file on the terminal, (A)lways / (N)ever sticking.
type conflicts struct {
	con     *console
	policy  string // ask, error, never, always, rename
	skipped []string
}

func (c *conflicts) decide(e *unarc.Entry, p string, st fs.FileInfo) unarc.Overwrite {
	switch c.policy {
	case "always":
		return unarc.OverwriteAlways
	case "never":
		c.skipped = append(c.skipped, p)
		return unarc.OverwriteSkip
	case "rename":
		return unarc.OverwriteRename
	case "ask":
		if !st.Mode().IsRegular() {
			return unarc.OverwriteError // only OverwriteRename asks about these
		}
		for {
			size := "size unknown"
			if e.Size >= 0 {
				size = fmt.Sprintf("%d bytes", e.Size)
			}
			a := c.con.ask(fmt.Sprintf("%s exists (%d bytes, %s); replace with the archive's (%s)?\n  (y)es / (n)o / (A)lways / (N)ever / (r)ename: ",
				p, st.Size(), st.ModTime().Format("2006-01-02 15:04"), size))
			switch a {
			case "y", "yes", "Y":
				return unarc.OverwriteAlways
			case "n", "no":
				c.skipped = append(c.skipped, p)
				return unarc.OverwriteSkip
			case "A", "always":
				c.policy = "always"
				return unarc.OverwriteAlways
			case "N", "never":
				c.policy = "never"
				c.skipped = append(c.skipped, p)
				return unarc.OverwriteSkip
			case "r", "R", "rename":
				return unarc.OverwriteRename
			case "":
				// end of input: be safe
				c.policy = "error"
				return unarc.OverwriteError
			}
		}
	}
	return unarc.OverwriteError
}

// progress draws one status line on a terminal's stderr once work has
// lasted more than a second: bytes done / total, rate, current entry.
type progress struct {
	con   *console
	total int64 // bytes expected; <= 0 unknown
	done  atomic.Int64
	cur   atomic.Pointer[string]
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	drawn bool
}

// progressDelay is how long work must last before the line appears.
var progressDelay = time.Second

func startProgress(con *console, total int64) *progress {
	p := &progress{con: con, total: total, start: time.Now(), stop: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

// set records the current entry and, when done >= 0, the bytes done.
func (p *progress) set(name string, done int64) {
	if p == nil {
		return
	}
	if done >= 0 {
		p.done.Store(done)
	}
	if cur := p.cur.Load(); cur == nil || *cur != name {
		p.cur.Store(&name)
	}
}

func (p *progress) add(n int64) {
	if p != nil {
		p.done.Add(n)
	}
}

func (p *progress) loop() {
	defer p.wg.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			if now.Sub(p.start) >= progressDelay {
				p.draw(now)
			}
		}
	}
}

func (p *progress) draw(now time.Time) {
	done := p.done.Load()
	name := ""
	if cur := p.cur.Load(); cur != nil {
		name = *cur
	}
	if done == 0 && name == "" {
		return // still opening (a FIFO, a slow pipe): nothing to show yet
	}
	el := now.Sub(p.start).Seconds()
	rate := float64(done) / el
	line := ""
	if p.total > 0 {
		pct := 100 * float64(done) / float64(p.total)
		line = fmt.Sprintf("%3.0f%% %s / %s", pct, human(done), human(p.total))
	} else {
		line = human(done)
	}
	line += fmt.Sprintf("  %s/s  %s", human(int64(rate)), name)
	if len(line) > 100 {
		line = line[:100]
	}
	p.con.mu.Lock()
	fmt.Fprintf(p.con.stderr, "\r%s\x1b[K", line)
	p.drawn = true
	p.con.mu.Unlock()
}

// println prints line on its own line of stderr: the status line, when
// drawn, is cleared first (the next tick draws it again below).
func (p *progress) println(line string) {
	p.con.mu.Lock()
	if p.drawn {
		fmt.Fprint(p.con.stderr, "\r\x1b[K")
		p.drawn = false
	}
	fmt.Fprintln(p.con.stderr, line)
	p.con.mu.Unlock()
}

// end stops the line and clears it.
func (p *progress) end() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	if p.drawn {
		fmt.Fprint(p.con.stderr, "\r\x1b[K")
	}
}

func human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n), "KMGTPE"
	i := -1
	for f >= unit && i < len(u)-1 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, u[i])
}
