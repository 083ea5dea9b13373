package redisstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"podium/board"
)

// TestFriends: a list is set, replaced (the difference added and dropped,
// each change one audit entry) and cleared; the reverse index follows; a
// board's deletion leaves no list behind; bad lists change nothing.
func TestFriends(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.board(board.Board{})
	by := board.Author{Actor: "test"}
	set := func(m string, fs ...string) string {
		t.Helper()
		a, d, err := f.store.SetFriends(f.ctx, b.ID, m, fs, by)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.store.Friends(f.ctx, b, m)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("+%d -%d %s", a, d, strings.Join(got, ","))
	}
	of := func(m string) string {
		return strings.Join(f.rdb.SMembers(f.ctx, friendOfKey(b.ID, m)).Val(), ",")
	}
	audits := func() int64 { return f.rdb.XLen(f.ctx, AuditStream(b.ID)).Val() }
	if got := set("ann", "cid", "bob", "cid"); got != "+2 -0 bob,cid" {
		t.Fatalf("first list: %s", got)
	}
	n := audits()
	if got := set("ann", "bob", "cid"); got != "+0 -0 bob,cid" || audits() != n {
		t.Fatalf("same list again: %s, %d audit entries after %d", got, audits(), n)
	}
	if got := set("ann", "dee", "bob"); got != "+1 -1 bob,dee" || audits() != n+1 {
		t.Fatalf("replaced: %s, %d audit entries after %d", got, audits(), n)
	}
	if of("cid") != "" || of("dee") != "ann" || of("bob") != "ann" {
		t.Fatalf("reverse index: cid %q dee %q bob %q", of("cid"), of("dee"), of("bob"))
	}
	if got := set("ann"); got != "+0 -2 " || of("bob") != "" || f.rdb.SIsMember(f.ctx, friendsIndexKey(b.ID), "ann").Val() {
		t.Fatalf("cleared: %s, bob's index %q", got, of("bob"))
	}

	many := make([]string, board.MaxFriends+1)
	for i := range many {
		many[i] = fmt.Sprintf("m%d", i)
	}
	for _, c := range []struct {
		member string
		fs     []string
		want   string
	}{
		{"ann", []string{"ann", "bob"}, "themself"},
		{"ann", many, "at most 500"},
		{"ann", []string{"bob", "x\x00"}, "member 2"},
		{"", []string{"bob"}, "member"},
	} {
		if _, _, err := f.store.SetFriends(f.ctx, b.ID, c.member, c.fs, by); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.fs[0], err, c.want)
		}
	}
	if _, _, err := f.store.SetFriends(f.ctx, "no-such-board", "ann", []string{"bob"}, by); !errors.Is(err, board.ErrNotFound) {
		t.Errorf("unknown board: %v", err)
	}
	if got := set("ann", "bob"); got != "+1 -0 bob" {
		t.Fatal(got)
	}
	set("bob", "ann")
	if err := f.store.DeleteBoard(f.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if left := keyDump(t, f.rdb, tagOf(b.ID)+":friend*"); len(left) > 0 { // the audit log stays, as for every board
		t.Errorf("a deleted board's friends: %v", left)
	}
}

// TestEraseFriends: erasing a member, in either mode, leaves nothing of it
// in the board's friends: its own list and its reverse index go, it leaves
// every list that named it (a list it was the only friend of goes, and its
// member leaves the board's index of lists), and the other lists and
// reverse indexes stay as they were.
func TestEraseFriends(t *testing.T) {
	t.Parallel()
	for _, mode := range []board.EraseMode{board.Pseudonymise, board.RemoveMember} {
		f := newFixture(t)
		b := f.board(board.Board{})
		by := board.Author{Actor: "test"}
		if _, err := f.store.Submit(f.ctx, b.ID, board.Submission{Member: "alice", Score: 5, Op: board.Set}, by); err != nil {
			t.Fatal(err)
		}
		for m, fs := range map[string][]string{"alice": {"bob", "cid"}, "bob": {"alice", "dee"}, "cid": {"alice"}} {
			if _, _, err := f.store.SetFriends(f.ctx, b.ID, m, fs, by); err != nil {
				t.Fatal(err)
			}
		}
		f.erase(b, "alice", mode)
		dump := keyDump(t, f.rdb, tagOf(b.ID)+":friend*")
		if left := mentions(dump, "alice"); len(left) > 0 {
			t.Errorf("%s: friends keys still name the member:\n%s", mode, strings.Join(left, "\n"))
		}
		want := map[string]string{
			friendsKey(b.ID, "bob"):  "[dee]",
			friendOfKey(b.ID, "dee"): "[bob]",
			friendsIndexKey(b.ID):    "[bob]",
		}
		if fmt.Sprint(dump) != fmt.Sprint(want) {
			t.Errorf("%s: friends keys after the erasure:\n%v\nwant\n%v", mode, dump, want)
		}
	}
}
