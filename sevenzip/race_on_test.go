//go:build race

package sevenzip

// raceOn: the slow PPMd checkpoint cases run fewer streams under the race
// detector with -short (it decodes PPMd about ten times slower).
const raceOn = true
