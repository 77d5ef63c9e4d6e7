//go:build !race

package ppmd

const raceOn = false
