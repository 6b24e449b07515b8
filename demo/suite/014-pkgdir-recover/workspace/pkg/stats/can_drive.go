package stats

func CanDrive(age int) bool {
	return age >= 16
}
