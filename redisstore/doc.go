// Package redisstore keeps boards in Redis: the key layout (keys.go), the
// Lua scripts (lua/, one file each, embedded), reads and writes with their
// group commit, teams, rolling windows, freezes, the Function library that
// outside writers call with FCALL, snapshots for the archiver, and reads of
// closed periods that fall back to the archive once their keys expired.
//
// The rules it applies (definitions, periods, formats, validation) are
// package board's; this package decides only how they are kept. A Store is
// safe for concurrent use and keeps no state beyond caches, so any number
// of processes may share one Redis.
package redisstore
