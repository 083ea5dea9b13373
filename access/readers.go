package access

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reader is what a console session may read of private boards: a site admin
// every board, a board user the boards they hold a role on.
type Reader struct {
	Account Account
	grants  map[string]Grant
}

// Role is the reader's role on the board boardID created at created: Owner
// for a site admin, NoRole for a role given on an earlier board of the id.
func (r Reader) Role(boardID string, created time.Time) Role {
	if r.Account.SiteAdmin {
		return Owner
	}
	g, ok := r.grants[boardID]
	if !ok || g.Since.UnixMilli() != created.UnixMilli() {
		return NoRole
	}
	return g.Role
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
	cache    *shortCache[*Reader] // by the token's hash; nil for no reader
}

// NewReaders reads sessions, accounts and roles.
func NewReaders(s *Sessions, a *Accounts, g *Grants) *Readers {
	return &Readers{Sessions: s, Accounts: a, Grants: g, cache: newShortCache[*Reader](500 * time.Millisecond)}
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
	acc, err := rs.Accounts.Get(ctx, sess.User)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &Reader{Account: acc}
	if !acc.SiteAdmin {
		if r.grants, err = rs.Grants.Of(ctx, acc.Name); err != nil {
			return nil, fmt.Errorf("access: reader of a session: %w", err)
		}
	}
	return r, nil
}
