module github.com/go-unarc/unarc

go 1.26

require github.com/nwaples/rardecode/v2 v2.4.6
