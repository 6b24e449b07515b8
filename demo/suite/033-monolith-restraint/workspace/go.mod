module gitlab.com/umbra/fleet

go 1.22
