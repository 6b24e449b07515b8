module gitlab.com/nimbus/budget

go 1.22
