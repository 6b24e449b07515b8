module mathx

go 1.22
