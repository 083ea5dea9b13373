package board

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// changeJSON is one period of the submit script's result; empty scores and
// zero ranks mean "not on the board".
type changeJSON struct {
	P  string `json:"p"`
	BS string `json:"bs"`
	BR int    `json:"br"`
	AS string `json:"as"`
	AR int    `json:"ar"`
}

func decodeChanges(b *Board, periods []changeJSON, ranks bool) (Result, error) {
	var res Result
	for _, c := range periods {
		p, err := parseLabel(c.P, b.Location())
		if err != nil {
			return Result{}, err
		}
		before, err := place(c.BS, c.BR, ranks)
		if err != nil {
			return Result{}, err
		}
		after, err := place(c.AS, c.AR, ranks)
		if err != nil {
			return Result{}, err
		}
		res.Changes = append(res.Changes, Change{Period: p, Before: before, After: after})
	}
	return res, nil
}

// place reads a standing; without ranks, a score alone means on the board.
func place(score string, rank int, ranks bool) (Place, error) {
	if score == "" {
		return Place{}, nil
	}
	v, err := strconv.ParseFloat(score, 64)
	if err != nil {
		return Place{}, fmt.Errorf("decode score %q: %w", score, err)
	}
	return Place{Ranked: rank > 0 || !ranks, Score: v, Rank: rank}, nil
}

// parseLabel reads Period.String() back.
func parseLabel(label string, loc *time.Location) (Period, error) {
	kind, key, _ := strings.Cut(label, ":")
	k, err := ParseKind(kind)
	if err != nil {
		return Period{}, err
	}
	return ParsePeriod(k, key, loc)
}
