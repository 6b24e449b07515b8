package ledger

func CanVote(age int) bool {
	return age >= 18
}
