// Package admin is the console under /admin: sign-in and sessions, boards,
// scores, the audit log, API keys and admins. Every change is written to the
// audit log; every form carries a CSRF token and shows its errors inline.
package admin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/hooks"
	"podium/web/request"
)

// Store is what the console reads and changes in the board engine.
type Store interface {
	Now() time.Time
	Boards(ctx context.Context) ([]board.Board, error)
	Board(ctx context.Context, id string) (board.Board, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error)
	CreateBoard(ctx context.Context, b board.Board) (board.Board, error)
	UpdateBoard(ctx context.Context, b board.Board) (board.Board, error)
	DeleteBoard(ctx context.Context, id string) error
	Submit(ctx context.Context, boardID string, sub board.Submission, by board.Author) (board.Result, error)
	RemoveMember(ctx context.Context, boardID, member string, p *board.Period, by board.Author) ([]board.Removed, error)
	ResetPeriod(ctx context.Context, boardID string, p board.Period, by board.Author) (int, error)
	SetName(ctx context.Context, boardID, member, name string, by board.Author) (string, error)
	SetTeam(ctx context.Context, boardID, member, team string, by board.Author) (string, bool, error)
	TeamOf(ctx context.Context, b *board.Board, member string) (string, error)
	Segments
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	Freeze(ctx context.Context, id string, at time.Time) (board.Board, error)
	Unfreeze(ctx context.Context, id string) (board.Board, error)
	ScheduleReveal(ctx context.Context, id string, at time.Time) (board.Board, error)
	Moderation
}

// Options are the console's dependencies.
type Options struct {
	Store    Store
	Accounts *access.Accounts
	Sessions *access.Sessions
	Keys     *access.Keys
	Grants   *access.Grants     // board users' roles; nil: site admins only
	Allow    *access.AllowLists // private boards' allow-lists for sign-in with the organisation
	// OrgSignIn: sign-in with the organisation is on (web/signin): the
	// sign-in page offers it, and owners edit allow-lists.
	OrgSignIn bool
	Links     *access.Links  // share links of private boards
	Embeds    *access.Embeds // embed secrets of private boards' widgets
	// Forget drops what a deleted board leaves outside Redis (web.Forgetter);
	// nil: nothing.
	Forget  func(ctx context.Context, boardID string) (string, error)
	Limiter *access.Limiter
	Audit   *audit.Log
	// Signer signs the console's cookies: known devices, one-time messages.
	Signer *access.Signer
	// Hooks keeps the boards' webhooks; nil: no webhook pages.
	Hooks *hooks.Registry
	// DefaultTZ is the time zone new boards start with in the form.
	DefaultTZ string
	// TrustProxy: TLS is read from X-Forwarded-Proto, for Secure cookies.
	TrustProxy bool
	// Live streams the live standings a board's page shows admins; nil:
	// the page shows them as read, without updates.
	Live LiveServer
	// Members is a member's data and its erasure, for the board's owner;
	// nil: the console offers neither.
	Members Members
	Logger  *slog.Logger
}

// Handler serves the console.
type Handler struct {
	opts Options
	log  *slog.Logger
}

// New makes the console's handler.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.DefaultTZ == "" {
		opts.DefaultTZ = "UTC"
	}
	if opts.Signer == nil {
		panic("admin: Options.Signer is required (access.NewSigner)")
	}
	return &Handler{opts: opts, log: opts.Logger}
}

// loadBoard reads the board named in the path, or a 404 page naming it.
func (s *Handler) loadBoard(c echo.Context) (board.Board, error) {
	return request.Board(c.Request().Context(), s.opts.Store, request.Param(c, "board"))
}

// record writes the audit entry of a change this request made.
func (s *Handler) record(c echo.Context, e audit.Entry) {
	s.opts.Audit.RecordDone(c.Request().Context(), e, s.log)
}

func randomHex() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
