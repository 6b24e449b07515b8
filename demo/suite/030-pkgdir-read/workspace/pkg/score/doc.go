// Package score is the catalog service.
package score
