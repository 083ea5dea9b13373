package rows

import "podium/board"

// RaceLine is one member of a period's top on its race (board.RacePoint),
// as a reader sees it: its entry named as the privacy mode names it, and
// its points, oldest first.
type RaceLine struct {
	Entry  board.Entry
	Points []board.RacePoint
}

// Race pairs a period's top (its entries in board order, ids as stored)
// with the race's points, keeping the members the reader may see; the
// points keep the stored ids out of sight (only Entry names the member).
func (l Lens) Race(top []board.Entry, points []board.RacePoint) []RaceLine {
	ids := make([]string, len(top))
	for i, e := range top {
		ids[i] = e.Member
	}
	lines := board.RaceLines(points, ids)
	out := make([]RaceLine, 0, len(top))
	for i, e := range top {
		if !l.Shows(e.Position, e.Member) {
			continue
		}
		shown := l.Entry(e)
		pts := lines[i]
		for j := range pts {
			pts[j].Member = shown.Member
		}
		out = append(out, RaceLine{Entry: shown, Points: pts})
	}
	return out
}
