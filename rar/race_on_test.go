//go:build race

package rar

// raceEnabled: time bounds are not checked under the race detector.
const raceEnabled = true
