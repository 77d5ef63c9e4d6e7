package xz

import "runtime"

type MemStats = runtime.MemStats

func readMem(m *MemStats) { runtime.ReadMemStats(m) }
