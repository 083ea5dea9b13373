package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// scripts are loaded once; redis.Script runs EVALSHA and falls back to EVAL.
var scripts = struct {
	submit, view, around, standing, rank, search, remove, reset, rename, putdef, dropboard, reindex, upgrade, sched, snapshot, dropsnap, expire, roll, setteam, setseg, group, teambuild, freeze, note, erase, erased, redactstream, friends, leagueclose, leaguestage, reject *luaScript
}{
	submit:       load("submit"),
	view:         load("view"),
	around:       load("around"),
	standing:     load("standing"),
	rank:         load("rank"),
	search:       load("search"),
	remove:       load("remove"),
	reset:        load("reset"),
	rename:       load("rename"),
	putdef:       load("putdef"),
	dropboard:    load("dropboard"),
	reindex:      load("reindex"),
	upgrade:      load("upgrade"),
	sched:        load("sched"),
	snapshot:     load("snapshot"),
	dropsnap:     load("dropsnap"),
	expire:       load("expire"),
	roll:         load("roll"),
	setteam:      load("setteam"),
	setseg:       load("setseg"),
	group:        load("group"),
	teambuild:    load("teambuild"),
	freeze:       load("freeze"),
	note:         load("note"),
	erase:        load("erase"),
	erased:       load("erased"),
	redactstream: load("redactstream"),
	friends:      load("friends"),
	leagueclose:  load("leagueclose"),
	leaguestage:  load("leaguestage"),
	reject:       load("reject"),
}

// load makes the script lua/<name>.lua, after the libraries of lua/lib/ its
// header's uses: line names, with the KEYS and ARGV its header declares.
func load(name string) *luaScript {
	s, err := loadScript(name)
	if err != nil {
		panic(fmt.Sprintf("lua/%s.lua: %v", name, err))
	}
	return s
}

// Defaults of a Store.
const (
	DefaultRecentLen = 100
	DefaultIdemTTL   = 24 * time.Hour
	// DefaultAuditKeep is how many rows (one per score or change) each of a
	// board's audit streams keeps; older entries are dropped whole, in
	// steps of 1% (at most 1,000 rows; see audit_step in lua/lib/audit.lua).
	DefaultAuditKeep = 100_000
)

// Store keeps boards in Redis. It is safe for concurrent use and keeps no
// state of its own beyond configuration and caches, so any number of
// processes may share one Redis.
//
// Its methods are declared by concern, on the small parts it embeds (see
// surface.go for each part's interface): catalog (boards.go, cache.go),
// reader (read.go, views.go, past.go, recent changes), writer (submit.go,
// group.go, members.go), teamStore (team.go), freezer (freeze.go), upkeep
// (window.go, function.go, outside.go: the background work), snapshots
// (snapshot.go: the archiver's) and eraser (erase.go, member_data.go: a
// member's data and its erasure). Each part reaches the shared state below
// through the Store it belongs to.
type Store struct {
	catalog
	reader
	writer
	teamStore
	segmentStore
	freezer
	upkeep
	snapshots
	eraser

	rdb       redis.UniversalClient
	now       func() time.Time
	recentLen int
	idemTTL   time.Duration
	onWrite   []func(ctx context.Context, keys ...string)
	defTTL    time.Duration
	defs      defCache
	auditKeep int
	group     committer
	past      Past // closed periods whose keys expired; nil: none
	frozen    freezes
}

// Option configures a Store.
type Option func(*Store)

// WithClock replaces time.Now, for tests and replays.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithRecentLen caps each board's list of recent changes.
func WithRecentLen(n int) Option { return func(s *Store) { s.recentLen = n } }

// WithIdempotencyTTL sets how long a submission's idempotency key is remembered.
func WithIdempotencyTTL(d time.Duration) Option { return func(s *Store) { s.idemTTL = d } }

// WithAuditKeep sets how many rows each of a board's audit streams keeps
// (at least 100).
func WithAuditKeep(n int) Option { return func(s *Store) { s.auditKeep = max(n, 100) } }

// WithWriteHook is called with the score keys each write changed. The embedded
// store, which has no keyspace notifications, uses it to publish its own.
func WithWriteHook(f func(ctx context.Context, keys ...string)) Option {
	return func(s *Store) { s.onWrite = append(s.onWrite, f) }
}

// OnWrite adds a write hook (WithWriteHook) to a store not yet in use: the
// read cache (live.Cache), made after the store, learns of this process's
// writes the moment they are made.
func (s *Store) OnWrite(f func(ctx context.Context, keys ...string)) {
	s.onWrite = append(s.onWrite, f)
}

// NewStore wraps a go-redis client.
func NewStore(rdb redis.UniversalClient, opts ...Option) *Store {
	s := &Store{rdb: rdb, now: time.Now, recentLen: DefaultRecentLen, idemTTL: DefaultIdemTTL, defTTL: DefaultDefinitionTTL, auditKeep: DefaultAuditKeep}
	s.catalog, s.reader, s.writer, s.teamStore = catalog{s}, reader{s}, writer{s}, teamStore{s}
	s.segmentStore = segmentStore{s}
	s.freezer, s.upkeep, s.snapshots, s.eraser = freezer{s}, upkeep{s}, snapshots{s}, eraser{s}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Client is the underlying Redis client, for the live hub's subscriptions.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

func (s *Store) wrote(ctx context.Context, keys ...string) {
	if len(keys) == 0 {
		return
	}
	for _, f := range s.onWrite {
		f(ctx, keys...)
	}
}

// prelude is the first four arguments of the scripts that include
// lua/lib/encoding.lua: how board b keeps its entries. The other scripts
// read none of them.
func prelude(b *board.Board) []any {
	enc := encodingOf(b)
	desc := "0"
	if enc.desc {
		desc = "1"
	}
	return []any{desc, enc.prefixWidth, enc.fieldsWidth, string(b.RankStyle)}
}

// status reads the leading status word of a script reply.
func status(reply any) (string, []any, error) {
	arr, ok := reply.([]any)
	if !ok || len(arr) == 0 {
		return "", nil, fmt.Errorf("unexpected script reply %T", reply)
	}
	st, ok := arr[0].(string)
	if !ok {
		return "", nil, fmt.Errorf("unexpected script status %T", arr[0])
	}
	return st, arr[1:], nil
}
