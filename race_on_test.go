//go:build race

package unarc

// raceOn: under the race detector the PPMd checkpoint cases run fewer
// archives with -short (each resume decodes PPMd ten times slower).
const raceOn = true
