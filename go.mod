module github.com/go-unarc/unarc

go 1.26.0

require (
	github.com/nwaples/rardecode/v2 v2.4.6
	golang.org/x/crypto v0.59.0
)

require golang.org/x/sys v0.50.0 // indirect
