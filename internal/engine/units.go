package engine

// Units is implemented by a format Archive whose entries fall into
// independently decodable units: ZIP entries, non-solid RAR entries and
// RAR solid runs, 7z folders. The root's parallel Extract (and test)
// decodes different units on different goroutines.
type Units interface {
	// Units returns one value per entry of Entries (same length, same
	// order). Entries with equal values share decoder state (a solid
	// stream or folder): they are read one after another, in entry
	// order, on one goroutine, so the shared stream is decoded once.
	// Entries with different values may be decoded concurrently. The
	// values are labels only; an archive that does not implement Units
	// is one unit.
	Units() []int
}

// EntryWorkers is implemented by a format Archive whose decoders can use
// several goroutines inside one entry (Config.Workers). The root calls
// SetEntryWorkers before it decodes several units at once, so that N
// units in parallel do not each start N more goroutines: n is how many
// goroutines one entry may use from then on (n <= 1: one). Readers
// already open keep what they were opened with. Safe for concurrent use.
type EntryWorkers interface {
	SetEntryWorkers(n int)
}
