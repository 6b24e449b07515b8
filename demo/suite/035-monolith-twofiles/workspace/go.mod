module gitlab.com/nimbus/ledger

go 1.22
