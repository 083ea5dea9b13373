package memberdata

import (
	"errors"
	"testing"

	"podium/audit"
	"podium/board"
)

// TestEraseRedactsLinkEntries: the console audits a personal link's making
// and revoking with the member and the link's label, which is the member's
// display name, or its id when it has none ("personal Alice L. (lnk1)").
// After the erasure neither the name nor the id is left in those entries,
// in Redis or in the archive's copies.
func TestEraseRedactsLinkEntries(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		f.history()
		for _, e := range []audit.Entry{
			{Action: "link.create", Member: "alice", After: "personal Alice L. (lnk1)"},
			{Action: "link.revoke", Member: "alice", Before: "personal Alice L. (lnk1)", After: "(revoked: a new link replaces it)"},
			{Action: "link.create", Member: "dave", After: "personal dave (lnk2), expires 2026-12-01T00:00:00Z"},
		} {
			e.Actor, e.Board = root.Actor, f.b.ID
			if err := f.svc.Audit.Record(f.ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.svc.Archiver.CopyAudit(f.ctx); err != nil { // the archive holds copies of them too
			t.Fatal(err)
		}
		for _, m := range []string{"alice", "dave"} {
			if out, err := f.svc.Erase(f.ctx, &f.b, m, board.Pseudonymise, root); err != nil || out.Status != board.ErasedNow {
				t.Fatalf("erase %s: %+v %v", m, out, err)
			}
		}
		dump := f.dump()
		for _, word := range []string{"alice", "dave"} {
			if left := excerpt(dump, word); left != "" {
				t.Errorf("still holds %s:\n%s", word, left)
			}
		}
		// What the entries said besides the member stays.
		if excerpt(dump, "revoked: a new link replaces it") == "" {
			t.Error("the revocation's entry lost what it said of the link")
		}
	})
}

// TestEraseRefusesAWordOfAReason: an id the board never held is refused,
// though other members' entries name it in their reasons, in Redis ("asked
// by coach") or in the archive ("week 45 import"): an erasure is no way to
// take words out of the audit log.
func TestEraseRefusesAWordOfAReason(t *testing.T) {
	backends(t, func(t *testing.T, f *fixture) {
		f.history()
		e := audit.Entry{Actor: root.Actor, Board: f.b.ID, Action: "member.team", Member: "bob", Before: "red", After: "blue", Reason: "asked by coach"}
		if err := f.svc.Audit.Record(f.ctx, e); err != nil {
			t.Fatal(err)
		}
		for _, word := range []string{"coach", "import"} {
			if out, err := f.svc.Erase(f.ctx, &f.b, word, board.Pseudonymise, root); !errors.Is(err, ErrNoMember) {
				t.Errorf("erase %q: %+v %v, want ErrNoMember", word, out, err)
			}
		}
		dump := f.dump()
		for _, reason := range []string{"asked by coach", "week 45 import"} {
			if excerpt(dump, reason) == "" {
				t.Errorf("the reason %q is gone", reason)
			}
		}
	})
}
