module gitlab.com/quill/shop

go 1.22
