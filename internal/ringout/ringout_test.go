package ringout

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// counter writes the bytes 0, 1, 2, … into an 8-byte ring, three at a
// time, and fails with fail once it has written upTo bytes.
type counter struct {
	Out
	ring [8]byte
	upTo uint64
	fail error
}

func (c *counter) Fill() error {
	if c.W >= c.upTo && c.fail != nil {
		return c.fail
	}
	for k := 0; k < 3 && c.Left > 0 && c.W-c.R < uint64(len(c.ring)); k++ {
		c.ring[c.W&7] = byte(c.W)
		c.W++
		c.Left--
	}
	return nil
}

func want(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// TestOut: Read and WriteTo deliver every byte across ring wraps, end at
// the size, keep a Fill error sticky (after the bytes before it), and
// fail after Stop.
func TestOut(t *testing.T) {
	c := new(counter)
	c.Start(c.ring[:], c, 50)
	var got []byte
	p := make([]byte, 5)
	for {
		n, err := c.Read(p)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want(50)) {
		t.Errorf("Read: %v", got)
	}

	var buf bytes.Buffer
	c.Start(c.ring[:], c, 50)
	if n, err := c.WriteTo(&buf); err != nil || n != 50 || !bytes.Equal(buf.Bytes(), want(50)) {
		t.Errorf("WriteTo: %d, %v, %v", n, err, buf.Bytes())
	}

	bad := errors.New("bad data")
	c.upTo, c.fail = 12, bad
	c.Start(c.ring[:], c, 50)
	buf.Reset()
	if n, err := c.WriteTo(&buf); err != bad || n != 12 {
		t.Errorf("WriteTo with a failing Fill: %d, %v", n, err)
	}
	if n, err := c.Read(p); err != bad || n != 0 {
		t.Errorf("Read after the failure: %d, %v", n, err)
	}

	closed := errors.New("closed")
	c.Start(c.ring[:], c, 50)
	c.Stop(closed)
	if n, err := c.Read(p); err != closed || n != 0 {
		t.Errorf("Read after Stop: %d, %v", n, err)
	}
	if n, err := c.WriteTo(&buf); err != closed || n != 0 {
		t.Errorf("WriteTo after Stop: %d, %v", n, err)
	}
}

// TestStartClears: a new stream starts on a zeroed ring (implode and
// reduce copy matches from before the start as zeroes).
func TestStartClears(t *testing.T) {
	c := new(counter)
	c.ring = [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	c.Start(c.ring[:], c, 1)
	if c.ring != [8]byte{} {
		t.Errorf("ring after Start: %v", c.ring)
	}
}
