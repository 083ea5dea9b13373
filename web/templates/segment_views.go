package templates

// SegmentFilter is a board page's choice of segment: the values of the
// board's attributes to pick from, and the one shown.
type SegmentFilter struct {
	Current string // "country:NO"; "" the whole board
	Label   string // "country NO"; "" the whole board
	Groups  []SegmentGroup
	Hidden  []Link // the query the picker keeps: period, at, size
	Clear   string // the whole board in the same period
}

// SegmentGroup is one attribute's values.
type SegmentGroup struct {
	Attr    string
	Options []SegmentOption
}

// SegmentOption is one value to pick: Value as the query writes it
// ("country:NO"), Label as people read it ("NO (12)").
type SegmentOption struct {
	Value, Label string
	Selected     bool
}

// SegmentRankView is a member's rank within one of its segments in a
// period: "country NO: 2nd of 3".
type SegmentRankView struct {
	Label string // "country NO"
	Rank  string // "2nd"
	Of    string // "3"; "" where the reader is not told counts
	Href  string // the segment's page of the period
}
