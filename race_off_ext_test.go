//go:build !race

package unarc_test

const raceOnExt = false
