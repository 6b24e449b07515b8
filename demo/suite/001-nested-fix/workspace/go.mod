module github.com/brightlabs/calc

go 1.22
