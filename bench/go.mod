module github.com/go-unarc/unarc/bench

go 1.26.0

require (
	github.com/bodgit/sevenzip v1.6.5
	github.com/go-unarc/unarc v0.0.0-00010101000000-000000000000
	github.com/klauspost/compress v1.20.4
	github.com/nwaples/rardecode/v2 v2.4.6
	github.com/ulikunitz/xz v0.5.17
)

require (
	github.com/andybalholm/brotli v1.2.2 // indirect
	github.com/bodgit/plumbing v1.3.0 // indirect
	github.com/bodgit/windows v1.0.1 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	github.com/pierrec/lz4/v4 v4.1.27 // indirect
	github.com/spf13/afero v1.15.0 // indirect
	github.com/stangelandcl/ppmd v0.1.1 // indirect
	github.com/zeebo/blake3 v0.2.4 // indirect
	go4.org v0.0.0-20260112195520-a5071408f32f // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/go-unarc/unarc => ../
