module github.com/nimbus/cart

go 1.22
