package redisstore

import (
	"fmt"
	"strconv"
	"strings"

	"podium/board"
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

func decodeChanges(b *board.Board, periods []changeJSON, ranks bool) (board.Result, error) {
	var res board.Result
	for _, c := range periods {
		p, err := parseLabel(c.P, b)
		if err != nil {
			return board.Result{}, err
		}
		before, err := place(c.BS, c.BR, ranks)
		if err != nil {
			return board.Result{}, err
		}
		after, err := place(c.AS, c.AR, ranks)
		if err != nil {
			return board.Result{}, err
		}
		res.Changes = append(res.Changes, board.Change{Period: p, Before: before, After: after})
	}
	return res, nil
}

// place reads a standing; without ranks, a score alone means on the board.
func place(score string, rank int, ranks bool) (board.Place, error) {
	if score == "" {
		return board.Place{}, nil
	}
	v, err := strconv.ParseFloat(score, 64)
	if err != nil {
		return board.Place{}, fmt.Errorf("decode score %q: %w", score, err)
	}
	return board.Place{Ranked: rank > 0 || !ranks, Score: v, Rank: rank}, nil
}

// parseLabel reads Period.String() back.
func parseLabel(label string, b *board.Board) (board.Period, error) {
	kind, key, _ := strings.Cut(label, ":")
	k, err := board.ParseKind(kind)
	if err != nil {
		return board.Period{}, err
	}
	return b.PeriodOf(k, key)
}
