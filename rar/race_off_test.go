//go:build !race

package rar

const raceEnabled = false
