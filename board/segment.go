package board

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Segments. A board may declare a few member attributes (Board.Segments:
// "country", "class", "division"); a member holds at most one short value
// of each, set with a score (Submission.Segments) or on its own. Every
// value has its own standing in every period, kept by the same script as
// the member's score (redisstore/segment.go), so a page filtered to one
// value ranks its members among themselves, with the board's ties and rank
// style, beside their rank on the whole board.
//
// Limits: at most MaxSegments attributes, named like extra fields
// ([a-z][a-z0-9_]{0,15}); values of 1 to MaxSegmentValueLen bytes with the
// rules of member ids (printable, no invisible characters, no surrounding
// spaces); at most MaxSegmentValues distinct values per attribute at a
// time: a value no member holds any more no longer counts. A submission or
// a move that would add one more is refused with ErrSegmentFull.
const (
	MaxSegments        = 4
	MaxSegmentAttrLen  = 16
	MaxSegmentValueLen = 32
	MaxSegmentValues   = 1000
)

// ErrSegmentFull: an attribute already has MaxSegmentValues distinct
// values and a write would add another; nothing was written.
var ErrSegmentFull = errors.New("segment values full")

var segmentAttrPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,15}$`)

// Segment names one value of one attribute: the members whose Attr is
// Value. The zero Segment is no filter.
type Segment struct {
	Attr  string
	Value string
}

// IsZero reports whether s filters nothing.
func (s Segment) IsZero() bool { return s.Attr == "" }

// String is the segment as the API's query writes it: "country:NO".
func (s Segment) String() string {
	if s.IsZero() {
		return ""
	}
	return s.Attr + ":" + s.Value
}

// HasSegment reports whether the board declares attribute attr.
func (b *Board) HasSegment(attr string) bool { return slices.Contains(b.Segments, attr) }

// ParseSegment reads a filter "<attr>:<value>" ("" none) of board b.
func ParseSegment(b *Board, s string) (Segment, error) {
	if s == "" {
		return Segment{}, nil
	}
	attr, value, ok := strings.Cut(s, ":")
	if !ok {
		return Segment{}, NewFieldError(ErrInvalidInput, "segment", "must be <attribute>:<value>, as in country:NO")
	}
	return CheckSegment(b, attr, value)
}

// CheckSegment refuses an attribute the board does not declare and a value
// that breaks the rules of values; "" is no value.
func CheckSegment(b *Board, attr, value string) (Segment, error) {
	if err := checkAttr(b, attr); err != nil {
		return Segment{}, err
	}
	if err := CheckSegmentValue(attr, value); err != nil {
		return Segment{}, err
	}
	return Segment{Attr: attr, Value: value}, nil
}

func checkAttr(b *Board, attr string) error {
	switch {
	case b.HasSegment(attr):
		return nil
	case len(b.Segments) == 0:
		return NewFieldError(ErrInvalidInput, "segment", "board %q declares no segments", b.ID)
	}
	return NewFieldError(ErrInvalidInput, "segment", "board %q has no attribute %q (it has %s)", b.ID, attr, strings.Join(b.Segments, ", "))
}

// CheckSegmentValue holds a value to the rules of member ids, at most
// MaxSegmentValueLen bytes; the field named is "segments.<attr>".
func CheckSegmentValue(attr, value string) error {
	field := "segments." + attr
	if len(value) > MaxSegmentValueLen {
		return NewFieldError(ErrInvalidInput, field, "is longer than %d bytes", MaxSegmentValueLen)
	}
	if err := CheckMember(value); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return NewFieldError(ErrInvalidInput, field, "%s", fe.Message)
		}
		return err
	}
	return nil
}

// CheckSegments refuses a submission's values (attribute -> value; ""
// takes the member out of the attribute) that the board cannot take.
func CheckSegments(b *Board, vs map[string]string) error {
	for _, attr := range slices.Sorted(maps.Keys(vs)) { // the same error for the same input
		if err := checkAttr(b, attr); err != nil {
			return err
		}
		if v := vs[attr]; v != "" {
			if err := CheckSegmentValue(attr, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSegments holds a definition's attributes to their rules.
func (b *Board) checkSegments(p *problems) {
	if len(b.Segments) > MaxSegments {
		p.add("segments", "at most %d attributes", MaxSegments)
	}
	seen := map[string]bool{}
	for _, a := range b.Segments {
		if !segmentAttrPattern.MatchString(a) {
			p.add("segments", "%q must be 1-%d lower-case letters, digits and '_', starting with a letter", a, MaxSegmentAttrLen)
		}
		if seen[a] {
			p.add("segments", "%q is declared twice", a)
		}
		seen[a] = true
	}
}
