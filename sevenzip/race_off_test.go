//go:build !race

package sevenzip

const raceOn = false
