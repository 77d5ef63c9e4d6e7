//go:build !race

package unarc

const raceOn = false
