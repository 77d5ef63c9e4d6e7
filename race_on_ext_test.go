//go:build race

package unarc_test

// raceOnExt: under the race detector the PPMd checkpoint cases run fewer
// archives with -short (each resume decodes PPMd ten times slower).
const raceOnExt = true
