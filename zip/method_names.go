package zip

// Methods unarc names but does not decode (APPNOTE 4.4.5, as 7-Zip
// lists them): rows with a name only. Opening such an entry is
// ErrUnsupported.
func init() {
	for id, name := range map[uint16]string{
		7:         "Tokenize",
		10:        "PKImploding",
		18:        "Terse",
		19:        "LZ77",
		96:        "Jpeg",
		97:        "WavPack",
		methodAES: "AES",
	} {
		register(id, &methodSpec{name: name})
	}
}
