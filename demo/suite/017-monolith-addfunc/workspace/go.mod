module gitlab.com/quill/metrics

go 1.22
