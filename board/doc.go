// Package board holds the leaderboard rules, with no storage: a board's
// definition and its validation (Board, Validate, CheckNew, CheckImmutable),
// periods and their keys (calendar and rolling, in the board's time zone),
// score formats and exact scores in units, submissions and what they
// changed, ranks and ties as values (Entry, Page, Standing), the rules of
// teams, windows and freezes, and the errors every surface maps to a status.
//
// Nothing here talks to Redis; package redisstore keeps boards there, and
// its tests need a redis-server. The tests here run in milliseconds.
package board
