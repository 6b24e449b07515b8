module grades

go 1.22
