module example.com/mathx

go 1.22
