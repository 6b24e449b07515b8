module metrics

go 1.22
