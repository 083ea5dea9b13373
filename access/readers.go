package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Reader is what a console session may read of private boards: a site admin
// every board, a board user the boards they hold a role on.
type Reader struct {
	Account Account  // the zero Account for someone signed in by the organisation without one
	Org     Identity // who the organisation's sign-in found; empty after a password's
	grants  map[string]Grant
}

// Granted is the role the reader was given on the board boardID created at
// created: Owner for a site admin, NoRole for a role given on an earlier
// board of the id. An allow-list's admission is not a role (Readers.Role):
// it reads what a share link reads.
func (r Reader) Granted(boardID string, created time.Time) Role {
	if r.Account.SiteAdmin {
		return Owner
	}
	return r.grants[boardID].On(created) // the zero Grant: NoRole
}

// Readers finds the Reader of a console session's token, for the pages a
// signed-in user opens outside the console (a private board's own page, its
// live socket). What it finds is kept for half a second, so a page's live
// socket, whose guard asks twice a second, costs no Redis read each time;
// a role taken away or a session ended on another replica counts within that.
type Readers struct {
	Sessions *Sessions
	Accounts *Accounts
	Grants   *Grants
	Allow    *AllowLists          // nil: no sign-in with an organisation
	cache    *shortCache[*Reader] // by the token's hash; nil for no reader
}

// NewReaders reads sessions, accounts, roles and allow-lists (al may be nil).
func NewReaders(s *Sessions, a *Accounts, g *Grants, al *AllowLists) *Readers {
	return &Readers{Sessions: s, Accounts: a, Grants: g, Allow: al, cache: newShortCache[*Reader](500 * time.Millisecond)}
}

// Role is what r may do on the board boardID created at created: the role
// they were given, or a viewer's when the board's allow-list admits the
// organisation's sign-in that made their session.
func (rs *Readers) Role(ctx context.Context, r Reader, boardID string, created time.Time) (Role, error) {
	role := r.Granted(boardID, created)
	if role != NoRole || r.Org.Email == "" || rs.Allow == nil {
		return role, nil
	}
	a, err := rs.Allow.Get(ctx, boardID)
	if err != nil {
		return NoRole, err
	}
	if a.Since.UnixMilli() == created.UnixMilli() && a.Admits(r.Org) {
		return Viewer, nil
	}
	return NoRole, nil
}

// Of is the reader of a session token; ok false for a token of no live
// session (or of a user since removed).
func (rs *Readers) Of(ctx context.Context, token string) (Reader, bool, error) {
	if token == "" || len(token) > 128 {
		return Reader{}, false, nil
	}
	key, now := sha(token), time.Now()
	if r, ok := rs.cache.get(key, now); ok {
		if r == nil {
			return Reader{}, false, nil
		}
		return *r, true, nil
	}
	r, err := rs.read(ctx, token)
	if err != nil {
		return Reader{}, false, err
	}
	rs.cache.put(key, r, now)
	if r == nil {
		return Reader{}, false, nil
	}
	return *r, true, nil
}

func (rs *Readers) read(ctx context.Context, token string) (*Reader, error) {
	sess, err := rs.Sessions.Get(ctx, token)
	if errors.Is(err, ErrNoSession) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	org := Identity{Email: sess.Email, Groups: sess.Groups}
	if strings.HasPrefix(sess.User, OrgPrefix) {
		return &Reader{Org: org}, nil // no account: the allow-lists only
	}
	acc, err := rs.Accounts.Get(ctx, sess.User)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &Reader{Account: acc, Org: org}
	if !acc.SiteAdmin {
		if r.grants, err = rs.Grants.Of(ctx, acc.Name); err != nil {
			return nil, fmt.Errorf("access: reader of a session: %w", err)
		}
	}
	return r, nil
}
