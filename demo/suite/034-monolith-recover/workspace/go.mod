module gitlab.com/kestrel/budget

go 1.22
