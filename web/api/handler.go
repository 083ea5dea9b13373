// Package api is the JSON API v1 under /api/v1: reads for anyone, writes with
// an API key scoped to one board or all, errors as JSON with a status that
// fits, and the OpenAPI document that describes it (a test holds the two
// together).
package api

import (
	"context"
	"log/slog"
	"time"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/hooks"
	"podium/web/request"
)

// Store is what the API reads and changes in the board engine.
type Store interface {
	Now() time.Time
	Boards(ctx context.Context) ([]board.Board, error)
	Board(ctx context.Context, id string) (board.Board, error)
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	PageAfter(ctx context.Context, b *board.Board, p board.Period, m board.Mark, limit int) (board.Page, error)
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error)
	Total(ctx context.Context, b *board.Board, p board.Period) (int, error)
	Friends(ctx context.Context, b *board.Board, member string) ([]string, error)
	SetFriends(ctx context.Context, boardID, member string, friends []string, by board.Author) (added, dropped int, err error)
	CreateBoard(ctx context.Context, b board.Board) (board.Board, error)
	UpdateBoard(ctx context.Context, b board.Board) (board.Board, error)
	DeleteBoard(ctx context.Context, id string) error
	Submit(ctx context.Context, boardID string, sub board.Submission, by board.Author) (board.Result, error)
	SubmitBatch(ctx context.Context, boardID string, subs []board.Submission, opt board.BatchOptions) ([]board.Result, error)
	StartSession(ctx context.Context, boardID, member string) (board.Session, error)
	RemoveMember(ctx context.Context, boardID, member string, p *board.Period, by board.Author) ([]board.Removed, error)
	Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error)
	TeamPage(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	TeamSizes(ctx context.Context, b *board.Board, p board.Period, teams []string) ([]int, error)
	TeamMembers(ctx context.Context, b *board.Board, p board.Period, team string) ([]board.Standing, error)
	SetTeam(ctx context.Context, boardID, member, team string, by board.Author) (string, bool, error)
	SegmentsOf(ctx context.Context, b *board.Board, member string) (map[string]string, error)
	SetSegment(ctx context.Context, boardID, member, attr, value string, by board.Author) (string, bool, error)
	SegmentPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, error)
	SegmentAround(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, member string, k int) (board.Page, int, error)
	SegmentRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, error)
	LeagueOf(ctx context.Context, b *board.Board, p board.Period, member string) (board.LeaguePlace, error)
	CohortPage(ctx context.Context, b *board.Board, p board.Period, tier, cohort, offset, limit int) (board.Page, error)
	LeagueResultsOf(ctx context.Context, b *board.Board, p board.Period, members []string) (map[string]board.LeagueResult, error)
	LeagueTiers(ctx context.Context, b *board.Board, p board.Period) ([]board.LeagueTier, error)
	TopCohorts(ctx context.Context, b *board.Board, p board.Period, n int, also ...string) (map[string]bool, error)
	Freeze(ctx context.Context, id string, at time.Time) (board.Board, error)
	Unfreeze(ctx context.Context, id string) (board.Board, error)
	ScheduleReveal(ctx context.Context, id string, at time.Time) (board.Board, error)
}

// Options are the API's dependencies. Without Keys the API serves reads only.
type Options struct {
	Store Store
	Keys  *access.Keys
	// Forget drops what a deleted board leaves outside Redis (web.Forgetter);
	// nil: nothing.
	Forget  func(ctx context.Context, boardID string) (string, error)
	Limiter *access.Limiter
	Audit   *audit.Log
	// Requests per minute allowed per API key and per client address.
	KeyLimit, AddrLimit int
	// Hooks keeps the boards' webhooks; nil: no webhook routes.
	Hooks *hooks.Registry
	// DefaultTZ is the time zone of boards created without one (DEFAULT_TZ).
	DefaultTZ string
	// Export serves whole periods as CSV and JSON; nil: no export route.
	Export request.Exporter
	// Members is a member's data and its erasure; nil: no such routes.
	Members Members
	// Gate decides what a request may read (web/request/gate.go); nil: a
	// gate that knows the API keys and no share links.
	Gate   *request.Gate
	Logger *slog.Logger
}

// Handler serves the API.
type Handler struct {
	opts Options
	log  *slog.Logger
}

// New makes the API's handler.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.KeyLimit == 0 {
		opts.KeyLimit = 1200
	}
	if opts.AddrLimit == 0 {
		opts.AddrLimit = 600
	}
	if opts.Gate == nil {
		opts.Gate = &request.Gate{Store: opts.Store}
		if opts.Keys != nil {
			opts.Gate.Keys = opts.Keys
		}
	}
	return &Handler{opts: opts, log: opts.Logger}
}
