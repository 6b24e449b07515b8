package orders

func CanDrive(age int) bool {
	return age >= 21
}
