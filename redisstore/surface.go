package redisstore

import (
	"context"
	"time"

	"podium/board"
)

// The store's surface, by concern, the way go-redis groups its commands:
// each part below is an interface a consumer may ask for (or take a slice
// of), and a small type of this package that implements it. Store embeds
// every part, so one *Store satisfies them all.

// Catalog is the boards themselves: their definitions, cached for reads (one second) and read fresh for writes, and the maintenance of a board's keys.
type Catalog interface {
	CreateBoard(ctx context.Context, b board.Board) (board.Board, error)
	UpdateBoard(ctx context.Context, b board.Board) (board.Board, error)
	Boards(ctx context.Context) ([]board.Board, error)
	DeleteBoard(ctx context.Context, id string) error
	Board(ctx context.Context, id string) (board.Board, error)
	ReadBoard(ctx context.Context, id string) (board.Board, error)
	Reindex(ctx context.Context, boardID string, p board.Period) (int, error)
	Upgrade(ctx context.Context) ([]string, error)
}

// Reader is the standings of any period, open or closed (a closed period whose keys expired is read from the archive), ranks, around-me, search, the recent changes, and each period's race (race.go).
type Reader interface {
	Recent(ctx context.Context, b *board.Board, n int) ([]board.Activity, error)
	RecentOf(ctx context.Context, bs []*board.Board, n int) []RecentResult
	StoredPeriods(ctx context.Context, b *board.Board) ([]board.Period, error)
	Count(ctx context.Context, b *board.Board, p board.Period) (int, error)
	FromPast(ctx context.Context, b *board.Board, p board.Period) (bool, error)
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	PageAfter(ctx context.Context, b *board.Board, p board.Period, m board.Mark, limit int) (board.Page, error)
	Top(ctx context.Context, b *board.Board, p board.Period, n int) (board.Page, error)
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	RangeByScore(ctx context.Context, b *board.Board, p board.Period, min, max float64, offset, limit int) (board.Page, error)
	CountRange(ctx context.Context, b *board.Board, p board.Period, min, max float64) (int, error)
	Total(ctx context.Context, b *board.Board, p board.Period) (int, error)
	Ranks(ctx context.Context, b *board.Board, p board.Period, members []string) ([]board.Standing, error)
	Friends(ctx context.Context, b *board.Board, member string) ([]string, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	PageOf(ctx context.Context, b *board.Board, p board.Period, member string, size int) (int, error)
	Search(ctx context.Context, b *board.Board, p board.Period, prefix string, limit int) (entries []board.Entry, complete bool, err error)
	ReadViews(ctx context.Context, qs []ViewQuery) []ViewResult
	Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error)
}

// Writer is scores and members: every write runs one script that also appends its audit entry.
type Writer interface {
	Submit(ctx context.Context, boardID string, sub board.Submission, by board.Author) (board.Result, error)
	RemoveMember(ctx context.Context, boardID, member string, p *board.Period, by board.Author) ([]board.Removed, error)
	ResetPeriod(ctx context.Context, boardID string, p board.Period, by board.Author) (int, error)
	SetName(ctx context.Context, boardID, member, name string, by board.Author) (string, error)
	SetFriends(ctx context.Context, boardID, member string, friends []string, by board.Author) (added, dropped int, err error)
	SubmitBatch(ctx context.Context, boardID string, subs []board.Submission, opt board.BatchOptions) ([]board.Result, error)
}

// Moderation is fair play: the review queue of writes held for breaking a board's rules (held.go), and score sessions (session.go).
type Moderation interface {
	Held(ctx context.Context, boardID string) ([]board.HeldWrite, error)
	ApproveHeld(ctx context.Context, boardID string, id int64, by board.Author) (board.Result, error)
	RejectHeld(ctx context.Context, b *board.Board, id int64, by board.Author) (board.HeldWrite, error)
	StartSession(ctx context.Context, boardID, member string) (board.Session, error)
}

// TeamStore is team boards: who is in which team and the team standings.
type TeamStore interface {
	TeamOf(ctx context.Context, b *board.Board, member string) (string, error)
	Teams(ctx context.Context, b *board.Board) ([]string, error)
	SetTeam(ctx context.Context, boardID, member, team string, by board.Author) (left string, changed bool, err error)
	TeamPage(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	TeamSizes(ctx context.Context, b *board.Board, p board.Period, teams []string) ([]int, error)
	TeamMembers(ctx context.Context, b *board.Board, p board.Period, team string) ([]board.Standing, error)
}

// SegmentStore is boards with segments: members' attribute values and the
// standings of each value (segment.go).
type SegmentStore interface {
	SegmentsOf(ctx context.Context, b *board.Board, member string) (map[string]string, error)
	SegmentValues(ctx context.Context, b *board.Board, attr string) ([]SegmentValue, error)
	SetSegment(ctx context.Context, boardID, member, attr, value string, by board.Author) (left string, changed bool, err error)
	SegmentPage(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, offset, limit int) (board.Page, error)
	SegmentRanks(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, members []string) ([]board.Standing, error)
	SegmentAround(ctx context.Context, b *board.Board, p board.Period, seg board.Segment, member string, k int) (board.Page, int, error)
}

// LeagueStore is boards with a league: members' tiers, their cohorts in
// a period and the cohorts' standings (league.go), and the close of a
// period that moves them between tiers (league_close.go); segmentStore serves it,
// since a cohort's standing is a group standing like a segment's.
type LeagueStore interface {
	TierOf(ctx context.Context, b *board.Board, member string) (int, error)
	LeagueOf(ctx context.Context, b *board.Board, p board.Period, member string) (LeaguePlace, error)
	CohortPage(ctx context.Context, b *board.Board, p board.Period, tier, cohort, offset, limit int) (board.Page, error)
	LeagueTiers(ctx context.Context, b *board.Board, p board.Period) ([]LeagueTier, error)
	TopCohorts(ctx context.Context, b *board.Board, p board.Period, n int, also ...string) (map[string]bool, error)
	CloseLeague(ctx context.Context, b *board.Board, p board.Period) (bool, error)
	LeagueResults(ctx context.Context, b *board.Board, p board.Period) ([]board.LeagueResult, bool, error)
	LeagueResultsOf(ctx context.Context, b *board.Board, p board.Period, members []string) (map[string]board.LeagueResult, error)
	LeagueCloses(ctx context.Context, b *board.Board) ([]LeagueClose, error)
}

// Freezer is freeze and reveal, and the freezes every replica takes when their time comes.
type Freezer interface {
	Freeze(ctx context.Context, id string, at time.Time) (board.Board, error)
	Unfreeze(ctx context.Context, id string) (board.Board, error)
	ScheduleReveal(ctx context.Context, id string, at time.Time) (board.Board, error)
	RunFreezes(ctx context.Context, refresh time.Duration, report func(error), revealed func(board.Board))
	PublicSnapshot(ctx context.Context, b *board.Board, p board.Period, ttl time.Duration) (*Snapshot, error)
}

// Upkeep is the background work every replica does: the Function library for outside writers, their period schedules, the periods they wrote, and the rolling windows.
type Upkeep interface {
	LoadFunctions(ctx context.Context) error
	EnsureFunctions(ctx context.Context) (int, error)
	RefreshSchedules(ctx context.Context) error
	NotePeriods(ctx context.Context, b *board.Board, zsets []string, linger time.Duration) (noted, again int, err error)
	ScanPeriodKeys(ctx context.Context, sc *KeyScan, budget int) (map[string][]string, error)
	RollWindows(ctx context.Context, b *board.Board, maxSteps int) (more bool, err error)
}

// Snapshots is what the archiver needs: copies of a period taken atomically, and the expiry of archived periods.
type Snapshots interface {
	ExpirePeriod(ctx context.Context, b *board.Board, p board.Period, state string, ttl time.Duration) (bool, error)
	Snapshot(ctx context.Context, b *board.Board, p board.Period, ttl time.Duration) (*Snapshot, error)
	ArchiveSnapshot(ctx context.Context, b *board.Board, p board.Period, ttl time.Duration, token string) (*Snapshot, error)
	DropStaleSnapshots(ctx context.Context, b *board.Board) (int, error)
}

// Eraser is a member's data in Redis, and its erasure there (erase.go, member_data.go).
type Eraser interface {
	MemberData(ctx context.Context, b *board.Board, member string, max int) (MemberData, error)
	EraseMember(ctx context.Context, boardID string, e Erasure) (EraseStep, error)
	FinishErasure(ctx context.Context, boardID, member string, rec ErasureRecord) error
	RedactStream(ctx context.Context, key string, r Redaction) (int, error)
	AuditStreams(ctx context.Context, boardID string) ([]string, error)
}

// The parts of a Store; each reaches the shared state through its Store.
type (
	catalog      struct{ *Store }
	reader       struct{ *Store }
	writer       struct{ *Store }
	teamStore    struct{ *Store }
	segmentStore struct{ *Store }
	freezer      struct{ *Store }
	upkeep       struct{ *Store }
	snapshots    struct{ *Store }
	eraser       struct{ *Store }
)

var (
	_ Catalog      = catalog{}
	_ Reader       = reader{}
	_ Writer       = writer{}
	_ Moderation   = writer{}
	_ TeamStore    = teamStore{}
	_ SegmentStore = segmentStore{}
	_ LeagueStore  = segmentStore{}
	_ Freezer      = freezer{}
	_ Upkeep       = upkeep{}
	_ Snapshots    = snapshots{}
	_ Eraser       = eraser{}
)
