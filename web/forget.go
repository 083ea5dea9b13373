package web

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"podium/access"
)

// Forgetter drops what a deleted board leaves outside its Redis keys: its
// embed secret, its share links, the roles users held on it and its
// archived periods. A board made
// again under the id starts with none of them: the old board's links,
// signed widgets and past standings must not open or show on the new one,
// which may be public where the old one was private.
type Forgetter struct {
	Links    *access.Links
	Embeds   *access.Embeds
	Accounts *access.Accounts // with Grants: whose roles to drop
	Grants   *access.Grants
	Allow    *access.AllowLists
	Archive  interface {
		DropBoard(ctx context.Context, boardID string) (int64, error)
	}
}

// Forget drops them all (each failure named, the others still done) and
// says what went, for the audit log.
func (f Forgetter) Forget(ctx context.Context, boardID string) (string, error) {
	ctx = context.WithoutCancel(ctx) // the board is gone: finish, whatever the client does
	var done []string
	var errs []error
	if f.Embeds != nil {
		if err := f.Embeds.Drop(ctx, boardID); err != nil {
			errs = append(errs, fmt.Errorf("embed secret: %w", err))
		}
	}
	if f.Links != nil {
		n, err := f.Links.RevokeAll(ctx, boardID)
		if err != nil {
			errs = append(errs, fmt.Errorf("share links: %w", err))
		}
		if n > 0 {
			done = append(done, fmt.Sprintf("%d share links revoked", n))
		}
	}
	if f.Allow != nil {
		if err := f.Allow.Drop(ctx, boardID); err != nil {
			errs = append(errs, fmt.Errorf("allow-list: %w", err))
		}
	}
	if f.Grants != nil && f.Accounts != nil {
		if n, err := f.dropRoles(ctx, boardID); err != nil {
			errs = append(errs, fmt.Errorf("roles: %w", err))
		} else if n > 0 {
			done = append(done, fmt.Sprintf("%d roles taken away", n))
		}
	}
	if f.Archive != nil {
		n, err := f.Archive.DropBoard(ctx, boardID)
		if err != nil {
			errs = append(errs, fmt.Errorf("archive: %w", err))
		}
		if n > 0 {
			done = append(done, fmt.Sprintf("%d archived periods dropped", n))
		}
	}
	return strings.Join(done, ", "), errors.Join(errs...)
}

// dropRoles takes every role on boardID away and says how many there were.
// (A role also names the board's creation time, so one left behind by a
// failure here still does not count on a board made again under the id.)
func (f Forgetter) dropRoles(ctx context.Context, boardID string) (int, error) {
	accs, err := f.Accounts.List(ctx)
	if err != nil {
		return 0, err
	}
	users := make([]string, len(accs))
	for i, a := range accs {
		users[i] = a.Name
	}
	held, err := f.Grants.Holders(ctx, boardID, users)
	if err != nil {
		return 0, err
	}
	return len(held), f.Grants.DropBoard(ctx, boardID, users)
}
