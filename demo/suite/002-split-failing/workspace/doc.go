// Package budget holds small helpers of the budget service.
package budget
