package board

import "time"

// RaceTop is how many members a period's race follows: the top by rank,
// as CTFd's scoreboard graph follows its top ten. The script that records
// the race keeps the same number (racelib.TOP in
// redisstore/lua/lib/race.lua); redisstore's TestRaceMatchesModel fails
// when the two differ.
const RaceTop = 10

// RacePoint is one point of a period's race: a member of the period's top
// reached Score at At. A period's race lists them oldest first; a member's
// line starts where it first stood in the top with a changed score.
type RacePoint struct {
	At     time.Time
	Member string
	Score  float64
}

// RaceLines groups a race's points by member, each line oldest first, for
// the members listed (the top a reader sees), in their order; a member
// without points has an empty line.
func RaceLines(points []RacePoint, members []string) [][]RacePoint {
	at := make(map[string]int, len(members))
	for i, m := range members {
		at[m] = i
	}
	lines := make([][]RacePoint, len(members))
	for _, pt := range points {
		if i, ok := at[pt.Member]; ok {
			lines[i] = append(lines[i], pt)
		}
	}
	return lines
}
