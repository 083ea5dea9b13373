package memberdata

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/archive"
	"podium/audit"
	"podium/board"
	"podium/internal/pgtest"
	"podium/internal/redistest"
	"podium/redisstore"
)

var (
	rsrv *redistest.Server
	psrv *pgtest.Server
)

// redisDBs is how many logical databases the package's Redis has: a test
// takes one of its own, so a scan of every key sees its keys only.
const redisDBs = 32

var freeDBs = make(chan int, redisDBs)

// TestMain starts a private Redis and a private PostgreSQL.
func TestMain(m *testing.M) {
	var err error
	if rsrv, err = redistest.StartWith("--databases", strconv.Itoa(redisDBs)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if psrv, err = pgtest.Start(); err != nil {
		rsrv.Close()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for n := range redisDBs {
		freeDBs <- n
	}
	code := m.Run()
	psrv.Close()
	rsrv.Close()
	os.Exit(code)
}

// clock is a settable clock.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time  { return time.Unix(0, c.ns.Add(int64(time.Microsecond))).UTC() }
func (c *clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixture is a Service on an empty Redis database of its own and an
// archive (SQLite or PostgreSQL).
type fixture struct {
	t      *testing.T
	ctx    context.Context
	rdb    *redis.Client
	clock  *clock
	target string // the archive's
	svc    *Service
	b      board.Board
}

// backends runs a test against each archive database, the two in parallel.
func backends(t *testing.T, run func(t *testing.T, f *fixture)) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			target := filepath.Join(t.TempDir(), "archive.db")
			if name == "postgres" {
				target = psrv.Database(t)
			}
			n := <-freeDBs
			t.Cleanup(func() { freeDBs <- n })
			rdb := rsrv.ClientDB(t, n)
			if err := rdb.FlushDB(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			f := &fixture{t: t, ctx: context.Background(), rdb: rdb, clock: &clock{}, target: target}
			f.clock.Set(time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC))
			f.open()
			run(t, f)
		})
	}
}

// open (again) builds the service on the fixture's Redis and archive.
func (f *fixture) open() {
	f.t.Helper()
	db, err := archive.Open(f.ctx, f.target)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { db.Close() })
	store := redisstore.NewStore(f.rdb, redisstore.WithClock(f.clock.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
	log := audit.New(f.rdb)
	log.SetArchive(db)
	f.svc = &Service{Store: store, Audit: log, Archiver: &archive.Archiver{Store: store, DB: db, Grace: time.Hour, Linger: time.Millisecond, Log: quiet}, Log: quiet}
}

// history writes three weeks of a team board with a rolling window:
// 2026-W45 (archived, gone from Redis), W46 (closed, archived, still in
// Redis) and W47 (open). alice (named, renamed later) and bob are in team
// red, carol in blue. The board's audit stream keeps its newest entries
// only: the older ones are in the archive.
func (f *fixture) history() {
	f.t.Helper()
	var err error
	f.b, err = f.svc.Store.CreateBoard(f.ctx, board.Board{ID: "chess", Title: "Chess", Periods: []board.Kind{board.Weekly, board.AllTime, board.Last7d},
		Teams: board.TeamsSum, Retention: 1})
	if err != nil {
		f.t.Fatal(err)
	}
	by := board.Author{Actor: "admin:root"}
	write := func(s board.Submission, reason string) {
		f.t.Helper()
		by.Reason = reason
		if _, err := f.svc.Store.Submit(f.ctx, f.b.ID, s, by); err != nil {
			f.t.Fatal(err)
		}
	}
	write(board.Submission{Member: "alice", Name: "Alice Liddell", Team: "red", Op: board.Incr, Score: 10}, "week 45 import")
	write(board.Submission{Member: "bob", Team: "red", Op: board.Incr, Score: 20}, "")
	write(board.Submission{Member: "carol", Team: "blue", Op: board.Incr, Score: 5}, "")
	f.clock.Set(time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC))
	write(board.Submission{Member: "alice", Op: board.Incr, Score: 7}, "")
	write(board.Submission{Member: "bob", Op: board.Incr, Score: 3}, "")
	write(board.Submission{Member: "carol", Op: board.Incr, Score: 30}, "helped alice")
	write(board.Submission{Member: "dave", Op: board.Incr, Score: 7}, "")
	f.clock.Set(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC))
	write(board.Submission{Member: "alice", Op: board.Incr, Score: 1}, "")
	if _, err := f.svc.Store.SetName(f.ctx, f.b.ID, "alice", "Alice L.", by); err != nil {
		f.t.Fatal(err)
	}
	write(board.Submission{Member: "bob", Op: board.Incr, Score: 1}, "thanks, Alice L.")
	a := f.svc.Archiver
	if _, err := a.Due(f.ctx); err != nil {
		f.t.Fatal(err)
	}
	w45, _ := board.ParsePeriod(board.Weekly, "2026-W45", time.UTC)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if n, _ := f.rdb.Exists(f.ctx, redisstore.ZSetKey(f.b.ID, w45)).Result(); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			f.t.Fatal("2026-W45 did not expire from Redis")
		}
	}
	if _, err := a.CopyAudit(f.ctx); err != nil {
		f.t.Fatal(err)
	}
	for _, k := range []string{redisstore.AuditStream(f.b.ID), redisstore.AuditActorStream(f.b.ID, "admin:root")} {
		f.rdb.XTrimMaxLen(f.ctx, k, 3) // as audit_trim does once the archive holds them
	}
}

// dump reads every key of the fixture's Redis database and every row of
// the archive, as text.
func (f *fixture) dump() string {
	f.t.Helper()
	var b strings.Builder
	for k, v := range keyDump(f.t, f.rdb) {
		fmt.Fprintln(&b, k, v)
	}
	b.WriteString(tablesDump(f.t, f.target))
	return b.String()
}

// keyDump reads every key of a database, as text: its name and every
// value, field, member and score it holds, whatever its type.
func keyDump(t *testing.T, rdb *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	iter := rdb.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		var v any
		var err error
		switch typ := rdb.Type(ctx, k).Val(); typ {
		case "string":
			v, err = rdb.Get(ctx, k).Result()
		case "hash":
			v, err = rdb.HGetAll(ctx, k).Result()
		case "list":
			v, err = rdb.LRange(ctx, k, 0, -1).Result()
		case "set":
			v, err = rdb.SMembers(ctx, k).Result()
		case "zset":
			v, err = rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		case "stream":
			v, err = rdb.XRange(ctx, k, "-", "+").Result()
		case "none":
			continue
		default:
			t.Fatalf("%s: a key of type %s", k, typ)
		}
		if err != nil && err != redis.Nil {
			t.Fatalf("%s: %v", k, err)
		}
		out[k] = fmt.Sprint(v)
	}
	return out
}

// tablesDump reads every row of every table of the archive, as text.
func tablesDump(t *testing.T, target string) string {
	t.Helper()
	driver, dsn := "sqlite", "file:"+target
	if strings.HasPrefix(target, "postgres") {
		driver, dsn = "pgx", target
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{"archive_periods", "archive_entries", "archive_teams", "archive_race", "archive_audit", "archive_schema"} {
		rs, err := db.Query("SELECT * FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rs.Columns()
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					vals[i] = string(bs)
				}
			}
			fmt.Fprintln(&b, table, vals)
		}
		rs.Close()
	}
	return b.String()
}

// excerpt is the lines of text that hold word, ignoring case.
func excerpt(text, word string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(strings.ToLower(line), word) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
