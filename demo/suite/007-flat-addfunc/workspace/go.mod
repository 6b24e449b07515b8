module orders

go 1.22
