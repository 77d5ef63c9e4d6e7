module github.com/go-unarc/unarc

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/nwaples/rardecode/v2 v2.4.6
	github.com/ulikunitz/xz v0.5.17
	golang.org/x/crypto v0.59.0
	golang.org/x/sys v0.50.0
)
