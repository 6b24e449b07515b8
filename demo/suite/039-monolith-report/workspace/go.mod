module gitlab.com/nimbus/cart

go 1.22
