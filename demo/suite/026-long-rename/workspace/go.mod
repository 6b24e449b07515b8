module stats

go 1.22
