package tar

import (
	"bytes"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/go-unarc/unarc/internal/inorder"
	"github.com/go-unarc/unarc/internal/pool"
)

// gzipMembers compresses with several goroutines as pigz's independent
// mode does: the input is cut into gzipMemberSize pieces, each
// compressed as a gzip member of its own, the members written in order.
// gzip, GNU tar and our reader read concatenated members as one stream;
// each piece starts without the previous one's history, which costs
// about 0.1% of the output at this size.
type gzipMembers struct {
	w     io.Writer
	level int
	q     inorder.Queue[*gzipMember]
	cur   *gzipMember
	free  []*gzipMember
	wrote bool // a member was written
	err   error
}

// gzipMember is one piece: its input and its compressed member.
type gzipMember struct {
	in  *[]byte // pooled
	out bytes.Buffer
	gz  *gzip.Writer
	err error
}

const gzipMemberSize = 1 << 20

func newGzipMembers(k encKey) (*gzipMembers, error) {
	if _, err := gzip.NewWriterLevel(io.Discard, k.level); err != nil {
		return nil, invalid("gzip level %d", k.level)
	}
	return &gzipMembers{level: k.level, q: inorder.Queue[*gzipMember]{Max: k.threads}}, nil
}

func (g *gzipMembers) reset(w io.Writer) {
	g.drop()
	g.w, g.wrote, g.err = w, false, nil
}

func (g *gzipMembers) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 && g.err == nil {
		if g.cur == nil {
			if k := len(g.free); k > 0 {
				g.cur, g.free = g.free[k-1], g.free[:k-1]
			} else {
				g.cur = &gzipMember{}
			}
			g.cur.in = pool.Get(gzipMemberSize)
			*g.cur.in = (*g.cur.in)[:0]
		}
		in := *g.cur.in
		k := min(gzipMemberSize-len(in), len(p))
		*g.cur.in = append(in, p[:k]...)
		p, n = p[k:], n+k
		if len(*g.cur.in) == gzipMemberSize {
			g.start()
		}
	}
	return n, g.err
}

// start hands the current piece to a goroutine, writing out the oldest
// when the queue is full.
func (g *gzipMembers) start() {
	m := g.cur
	g.cur = nil
	if m.gz == nil {
		m.gz, m.err = gzip.NewWriterLevel(&m.out, g.level)
	}
	if done, ok := g.q.Add(m, compressMember); ok {
		g.emit(done)
	}
}

func compressMember(m *gzipMember) {
	if m.err != nil {
		return
	}
	m.out.Reset()
	m.gz.Reset(&m.out)
	if _, m.err = m.gz.Write(*m.in); m.err == nil {
		m.err = m.gz.Close()
	}
}

func (g *gzipMembers) emit(m *gzipMember) {
	if g.err == nil {
		g.err = m.err
	}
	if g.err == nil {
		_, g.err = g.w.Write(m.out.Bytes())
		g.wrote = true
	}
	pool.Put(m.in)
	m.in = nil
	g.free = append(g.free, m)
}

// Flush ends the current member and writes every member out.
func (g *gzipMembers) Flush() error {
	if g.cur != nil && len(*g.cur.in) > 0 {
		g.start()
	}
	for m, ok := g.q.Next(); ok; m, ok = g.q.Next() {
		g.emit(m)
	}
	return g.err
}

// Close writes the rest; an empty stream is one empty member.
func (g *gzipMembers) Close() error {
	if g.err == nil && !g.wrote && g.cur == nil && g.q.Len() == 0 {
		g.cur = &gzipMember{in: pool.Get(0)}
		*g.cur.in = (*g.cur.in)[:0]
		g.start()
	}
	g.Flush()
	g.drop()
	return g.err
}

// drop waits for the members in flight and gives their buffers back.
func (g *gzipMembers) drop() {
	for m, ok := g.q.Next(); ok; m, ok = g.q.Next() {
		pool.Put(m.in)
		m.in = nil
		g.free = append(g.free, m)
	}
	if g.cur != nil {
		pool.Put(g.cur.in)
		g.cur.in = nil
		g.free = append(g.free, g.cur)
		g.cur = nil
	}
}
