package redisstore

import (
	"github.com/redis/go-redis/v9"

	"podium/board"
)

// Script makes a Lua script of another package that reads a board's sorted
// sets the way this package does: src runs after the libraries of lua/lib/
// its header's uses: line names. With ranks it may call zrange (board
// order, best first), entry_id (a member id out of a tie-break entry) and
// rows (entries with ranks in the board's style and display names); its
// ARGV then start with ScriptArgs(b), and the keys it passes to rows are a
// period's ScriptKeys. The webhook runner (hooks/) compares top N inside
// Redis with such a script, so that two replicas cannot both see the same
// change.
func Script(src string) *redis.Script {
	full, err := assemble(src)
	if err != nil {
		panic(err)
	}
	return redis.NewScript(full)
}

// ScriptArgs are the first ARGV of a Script for board b that uses a
// library reading the board's encoding (ranks): its order, its entries'
// prefix and fields widths, and its rank style.
func ScriptArgs(b *board.Board) []any { return prelude(b) }

// ScriptKeys are the keys rows(z, d, names, offset, limit) of a Script
// reads for period p of board b: its scores, its tie groups (dense ranks)
// and the board's display names. All share the board's hash slot.
func ScriptKeys(b *board.Board, p board.Period) (z, d, names string) {
	z = ZSetKey(b.ID, p)
	return z, distinctKey(z), namesKey(b.ID)
}

// HashTag is the {<board>} part every key of board id holds, so a Redis
// Cluster keeps them on one slot; packages that keep keys of their own
// beside a board's (hooks/) build them on it.
func HashTag(id string) string { return tagOf(id) }
