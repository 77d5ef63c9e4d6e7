package pool

// TryGet returns a buffer of length n from the kept list of n's class when
// one is waiting there, else nil; it never allocates. A growing window
// uses it to jump straight to its final size when a warm one is at hand,
// and otherwise grows step by step without reserving the final size.
// Classes below the kept lists (64 KiB) and above 1 GiB always give nil.
func TryGet(n int) *[]byte {
	if n < 0 {
		return nil
	}
	c := class(n)
	if c < bigShift || c > maxShift {
		return nil
	}
	p := getBig(c)
	if p == nil {
		return nil
	}
	*p = (*p)[:n]
	return p
}
