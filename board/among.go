package board

import (
	"errors"
	"slices"
)

// MaxFriends is the most friends a board keeps for one member: with the
// member, a friends view is one ranks read (MaxRankMembers).
const MaxFriends = 500

// Listed is a member's standing in a period together with their place
// within a list of members (friends, a class, any set a client names).
type Listed struct {
	Standing
	// ListRank is the member's rank among the listed members who have a
	// score, by the board's rank style: competition (1, 2, 2, 4), dense
	// (1, 2, 2, 3) or ordinal (1, 2, 3, 4, ties split by the tie-break, as
	// the global ranks are). 0 when the member has no score in the period.
	ListRank int
}

// Among ranks standings within their list: the ranked members in board
// order, each with its rank among them, then the members without a score
// in the order given. Tied members (equal global ranks) share a list rank.
func Among(b *Board, sts []Standing) []Listed {
	out := make([]Listed, 0, len(sts))
	var unranked []Listed
	for _, st := range sts {
		if st.Ranked {
			out = append(out, Listed{Standing: st})
		} else {
			unranked = append(unranked, Listed{Standing: st})
		}
	}
	slices.SortStableFunc(out, func(a, c Listed) int { return a.Position - c.Position })
	r := ListRanker{Style: b.RankStyle}
	for i := range out {
		out[i].ListRank = r.Next(out[i].Rank)
	}
	return append(out, unranked...)
}

// ListRanker ranks the members of a list among themselves, handed over in
// board order with their ranks on the whole period: a list of friends
// (Among), or a segment's members as the archive copies a period whole
// (archive/segments.go), whose ranks then match a segment standing's in
// Redis. Members tied on the period (equal ranks, never with ordinal
// ranks) share a list rank. The zero value ranks competition style.
type ListRanker struct {
	Style RankStyle
	n     int // members ranked so far
	dense int // tie groups so far
	last  int // the last member's period rank and list rank
	rank  int
}

// Next is the list rank of the next member, whose rank on the period is
// periodRank.
func (r *ListRanker) Next(periodRank int) int {
	tied := r.n > 0 && periodRank == r.last && r.Style != Ordinal
	r.n++
	switch {
	case tied:
	case r.Style == Dense:
		r.dense++
		r.rank = r.dense
	default: // competition, ordinal: one more than the members before
		r.rank = r.n
	}
	r.last = periodRank
	return r.rank
}

// Count is how many members the ranker has ranked.
func (r *ListRanker) Count() int { return r.n }

// CheckMembers checks a list of member ids named by a client (a ranks
// read, friends): each a valid id, at most max of them, at least one. It
// returns the list without repeats, in its first order.
func CheckMembers(field string, ids []string, max int) ([]string, error) {
	if len(ids) == 0 {
		return nil, NewFieldError(ErrInvalidInput, field, "name at least one member")
	}
	if len(ids) > max {
		return nil, NewFieldError(ErrInvalidInput, field, "at most %d members at once, not %d", max, len(ids))
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for i, id := range ids {
		if err := CheckMember(id); err != nil {
			fe := NewFieldError(ErrInvalidMember, field, "member %d (%.40q): %s", i+1, id, fieldMessage(err))
			return nil, fe
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// fieldMessage is the message of a FieldError, or the error's text.
func fieldMessage(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}

// AmongEntries are the ranked members of a list as rows of a page (the
// compare and friends pages, live): Rank is the rank among them, Position
// the place in the list, and the one field the rank on the whole board.
// Members without a score are left out.
func AmongEntries(listed []Listed) []Entry {
	var out []Entry
	for _, l := range listed {
		if !l.Ranked {
			continue
		}
		out = append(out, Entry{Rank: l.ListRank, Position: len(out), Member: l.Member, Name: l.Name, Score: l.Score, Fields: []int64{int64(l.Rank)}})
	}
	return out
}
