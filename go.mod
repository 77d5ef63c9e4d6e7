module github.com/go-unarc/unarc

go 1.26
