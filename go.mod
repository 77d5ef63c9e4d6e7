module github.com/go-unarc/unarc

go 1.25.0

require (
	github.com/andybalholm/brotli v1.2.2
	github.com/klauspost/compress v1.20.4
	github.com/pierrec/lz4/v4 v4.1.27
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/crypto v0.55.0
	golang.org/x/sys v0.47.0
	golang.org/x/term v0.45.0
)

require github.com/klauspost/cpuid/v2 v2.0.12 // indirect
