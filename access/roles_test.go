package access

import (
	"testing"
	"time"
)

// TestNewAccountStartsWithoutRoles: an account made under the name of one
// removed earlier does not inherit roles the removal left behind (it drops
// them after the account, and may fail half-way).
func TestNewAccountStartsWithoutRoles(t *testing.T) {
	rdb := srv.ClientDB(t, 5)
	ctx := t.Context()
	rdb.FlushDB(ctx)
	a, g := NewAccounts(rdb, 4), NewGrants(rdb)
	created := time.UnixMilli(1_767_225_600_123)
	if err := a.CreateBoardUser(ctx, "ta", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if err := g.Set(ctx, "ta", "class", Owner, created); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, "ta"); err != nil { // and DropUser never ran
		t.Fatal(err)
	}
	if err := a.CreateBoardUser(ctx, "ta", "another horse battery"); err != nil {
		t.Fatal(err)
	}
	if r, err := NewGrants(rdb).On(ctx, "ta", "class", created); err != nil || r != NoRole {
		t.Errorf("the new ta holds the old one's role: %v %v", r, err)
	}
	// Making an account that exists changes nobody's roles.
	if err := g.Set(ctx, "ta", "class", Viewer, created); err != nil {
		t.Fatal(err)
	}
	if err := a.Create(ctx, "ta", "yet another battery"); err == nil {
		t.Fatal("made twice")
	}
	if r, _ := NewGrants(rdb).On(ctx, "ta", "class", created); r != Viewer {
		t.Errorf("a refused create took ta's role: %v", r)
	}
}
