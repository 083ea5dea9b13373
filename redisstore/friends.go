package redisstore

// Friends. A board may keep, for a member, the members they call friends
// (lb:{b}:friends:<member>, a set of at most board.MaxFriends ids), so a
// friends view needs no list in the request: the member's standing among
// their friends is one ranks read of the member and the set. Each friend's
// reverse index (lb:{b}:friendof:<friend>) names the members whose lists
// hold them, so erasing a member takes them out of every list (erase.lua);
// the board's index (lb:{b}:friends) names the members with a list, so
// deleting the board deletes every list (dropboard.lua).
// The lists are the board's, not the periods': they do not expire, and a
// friend need not have a score.

import (
	"context"
	"fmt"
	"slices"

	"podium/board"
)

func friendsKey(id, member string) string  { return tagOf(id) + ":friends:" + member }
func friendOfKey(id, member string) string { return tagOf(id) + ":friendof:" + member }
func friendsIndexKey(id string) string     { return tagOf(id) + ":friends" }

// Friends is the member's friends on board b, sorted; none when the board
// keeps no list for them.
func (s reader) Friends(ctx context.Context, b *board.Board, member string) ([]string, error) {
	if err := board.CheckMember(member); err != nil {
		return nil, err
	}
	fs, err := s.rdb.SMembers(ctx, friendsKey(b.ID, member)).Result()
	if err != nil {
		return nil, fmt.Errorf("board: friends of %q on %q: %w", member, b.ID, err)
	}
	slices.Sort(fs)
	return fs, nil
}

// SetFriends makes friends the member's list of friends on the board (none:
// the list is dropped), and records the change in the board's audit log in
// the same step. It reports how many friends it added and dropped.
func (s writer) SetFriends(ctx context.Context, boardID, member string, friends []string, by board.Author) (added, dropped int, err error) {
	if err := by.Check(); err != nil {
		return 0, 0, err
	}
	if err := board.CheckMember(member); err != nil {
		return 0, 0, err
	}
	if len(friends) > 0 {
		if friends, err = board.CheckMembers("friends", friends, board.MaxFriends); err != nil {
			return 0, 0, err
		}
	}
	if slices.Contains(friends, member) {
		return 0, 0, board.NewFieldError(board.ErrInvalidInput, "friends", "%q is the member themself: a friends view always shows the member", member)
	}
	c := scripts.friends.call(6, 4+len(friends)).key("def", defKey(boardID)).key("friends", friendsKey(boardID, member)).key("index", friendsIndexKey(boardID))
	auditKeys(c, boardID, by).arg("member", member).arg("actor", by.Actor).arg("reason", by.Reason).arg("audit_keep", s.auditKeep)
	for _, f := range friends {
		c.arg("friend", f)
	}
	reply, err := c.run(ctx, s.rdb).Result()
	if err != nil {
		return 0, 0, fmt.Errorf("board: friends of %q on %q: %w", member, boardID, err)
	}
	st, rest, err := status(reply)
	if err != nil {
		return 0, 0, err
	}
	if st == "nf" {
		return 0, 0, fmt.Errorf("board %q: %w", boardID, board.ErrNotFound)
	}
	if len(rest) != 2 {
		return 0, 0, fmt.Errorf("board: friends of %q on %q: reply %v", member, boardID, reply)
	}
	return toInt(rest[0]), toInt(rest[1]), nil
}
