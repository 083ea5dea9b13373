package board

import "time"

// Read limits.
const (
	MaxPageSize    = 1000
	MaxAround      = 100
	MaxRankMembers = 1000
)

// Entry is one row of a board.
type Entry struct {
	Rank     int
	Position int // 0-based place in board order; differs from Rank-1 at ties
	Member   string
	Name     string
	Score    float64
	Fields   []int64 // extra sort field values, when the board has any
	// GlobalRank is, in a segment's page (Page.Segment), the member's rank
	// on the whole period; 0 elsewhere.
	GlobalRank int
	// GlobalPosition is, in a segment's page, the member's place on the
	// whole period (0-based): what a privacy mode's "top N only" looks at.
	GlobalPosition int
	// Segments are the member's values of the board's attributes
	// (board/segment.go), in exports and archive copies; nil elsewhere.
	Segments map[string]string
	// League is, in exports of a period of the board's league's kind, the
	// member's league there (LeagueRow); nil elsewhere.
	League *LeagueRow
	// Masked: Member and Name are a privacy mode's stand-ins for the member
	// (rows.Lens), which nothing links to.
	Masked bool
	// Key is the row's place among equal scores as the store orders them
	// (its sorted-set entry: "<tie-break prefix>|<member>", or the bare
	// member id), which a Mark keeps; "" for rows read from the archive,
	// whose order is their Position. It names the member: never shown.
	Key string
}

// Mark is a place in a period's order just after one row: its score and
// its order key (Entry.Key). A page read after a mark continues a walk
// through a period that changes meanwhile (the API's cursors): the rows
// after the mark are those whose score and key come later in the board's
// order now, wherever the marked row itself went since; a member whose
// score and key did not change is on exactly one side of it.
//
// A mark without a Key is a position: the rows from Position+1 on (the
// archive, whose rows no longer move, and rows whose key is too long to
// keep, where the walk falls back to offsets).
type Mark struct {
	Score    float64
	Key      string
	Position int // the marked row's position when it was read
}

// MarkOf is the mark just after entry e.
func MarkOf(e Entry) Mark { return Mark{Score: e.Score, Key: e.Key, Position: e.Position} }

// Precedes reports whether e comes after the mark in the order of a board
// (higher: higher scores are better), which is Redis' order of its sorted
// set: by score, then by entry bytes (read backwards when higher is better).
// Without keys on both sides it compares positions.
func (m Mark) Precedes(e Entry, higher bool) bool {
	if m.Key == "" || e.Key == "" {
		return e.Position > m.Position
	}
	if e.Score != m.Score {
		return (e.Score < m.Score) == higher
	}
	if higher {
		return e.Key < m.Key
	}
	return e.Key > m.Key
}

// Page is a window of one period of a board.
type Page struct {
	Period  Period
	Total   int // members in the period
	Offset  int // position of the first entry
	Matched int // members a score-range query matched; Total for plain pages
	Entries []Entry
	// Teams is how a team standing's scores were made (TeamPage): the
	// board's mode, or for an archived period the mode it closed under.
	Teams TeamMode
	// Segment is the filter of a segment's page (redisstore.SegmentPage):
	// Total counts its members, ranks are among them. Zero: the whole period.
	Segment Segment
	// Memo is shared by every copy of one cached answer (nil when read
	// from the store): what readers derive from it, kept once.
	Memo *Memo
}

// CheckWindow refuses a page window the store will not read: a negative
// offset, or a limit outside 1..MaxPageSize.
func CheckWindow(offset, limit int) error {
	if offset < 0 {
		return NewFieldError(ErrInvalidInput, "offset", "must not be negative")
	}
	if limit < 1 || limit > MaxPageSize {
		return NewFieldError(ErrInvalidInput, "limit", "must be from 1 to %d", MaxPageSize)
	}
	return nil
}

// Standing is a member's place in one period.
type Standing struct {
	Period   Period
	Member   string
	Name     string
	Ranked   bool // false: no score in this period
	Score    float64
	Rank     int
	Position int
	Total    int // members in the period
	Worse    int // members ranked strictly below (not tied)
}

// Percentile is the share of the other members that rank strictly below this
// one, 0-100: the best member is at 100, the worst at 0, tied members equal.
func (st Standing) Percentile() float64 {
	if !st.Ranked {
		return 0
	}
	if st.Total <= 1 {
		return 100
	}
	return 100 * float64(st.Worse) / float64(st.Total-1)
}

// Removed is one period a member was taken out of, with the score it had.
type Removed struct {
	Period Period
	Score  float64
}

// Activity is one entry of a board's recent changes.
type Activity struct {
	Time    time.Time
	Member  string
	Name    string
	Op      Op
	Value   float64
	Changes []Change
}
