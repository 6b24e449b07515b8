package mathx

func CanDrive(age int) bool {
	return age >= 18
}
