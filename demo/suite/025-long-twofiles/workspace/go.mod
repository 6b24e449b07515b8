module fleet

go 1.22
