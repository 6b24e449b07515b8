module gitlab.com/octo/grades

go 1.22
