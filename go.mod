module github.com/go-unarc/unarc

go 1.26

require (
	github.com/klauspost/compress v1.20.4
	github.com/ulikunitz/xz v0.5.17 // indirect
)
