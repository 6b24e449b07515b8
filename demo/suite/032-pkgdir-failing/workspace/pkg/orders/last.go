package orders

func Last(nums []int) int {
	return nums[len(nums)-1]
}
