package archive

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

var auditActors = []string{"admin:alice", "key:bot (k1)"}

// auditLog writes audit rows through every path that writes them (single
// scores, batches, audit.Log.Record) and remembers what it wrote, each row
// under a member id of its own, to compare listings with.
type auditLog struct {
	t       *testing.T
	ctx     context.Context
	rdb     *redis.Client
	store   *redisstore.Store
	log     *audit.Log
	a       *Archiver
	logs    *bytes.Buffer // what the archiver logged
	entries map[string][][]string
	actor   map[string]string // member -> actor
	n       int
}

func newAuditLog(t *testing.T, db *DB, keep int, boards ...string) *auditLog {
	t.Helper()
	rdb := newRedis(t)
	w := &auditLog{t: t, ctx: context.Background(), rdb: rdb, logs: &bytes.Buffer{}, entries: map[string][][]string{}, actor: map[string]string{}}
	w.store = redisstore.NewStore(rdb, redisstore.WithAuditKeep(keep), redisstore.WithDefinitionTTL(0))
	for _, id := range boards {
		if _, err := w.store.CreateBoard(w.ctx, board.Board{ID: id, Title: id, Periods: []board.Kind{board.AllTime}}); err != nil {
			t.Fatal(err)
		}
	}
	w.log = audit.New(rdb)
	w.log.SetArchive(db)
	w.a = &Archiver{Store: w.store, DB: db, Log: slog.New(slog.NewTextHandler(w.logs, nil))}
	return w
}

// write appends entries of rows rows each to a board, by turns of actor:
// batches when rows > 1, else single scores and, every fifth, an entry
// of audit.Log.Record.
func (w *auditLog) write(boardID string, entries, rows int) {
	w.t.Helper()
	for range entries {
		by := auditActors[w.n%len(auditActors)]
		var members []string
		for range rows {
			w.n++
			m := fmt.Sprintf("m%05d", w.n)
			members = append(members, m)
			w.actor[m] = by
		}
		var err error
		switch {
		case rows > 1:
			subs := make([]board.Submission, rows)
			for i, m := range members {
				subs[i] = board.Submission{Member: m, Score: 1}
			}
			_, err = w.store.SubmitBatch(w.ctx, boardID, subs, board.BatchOptions{By: board.Author{Actor: by}, NoRanks: true})
		case w.n%5 == 0:
			err = w.log.Record(w.ctx, audit.Entry{Actor: by, Action: "member.note", Board: boardID, Member: members[0], Reason: "test"})
		default:
			_, err = w.store.Submit(w.ctx, boardID, board.Submission{Member: members[0], Score: 1}, board.Author{Actor: by})
		}
		if err != nil {
			w.t.Fatal(err)
		}
		w.entries[boardID] = append(w.entries[boardID], members)
	}
}

// copyAll runs the archiver's audit copy.
func (w *auditLog) copyAll() int {
	w.t.Helper()
	n, err := w.a.CopyAudit(w.ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

// want is what a listing of one board shows: newest entry first, an
// entry's rows in order; one actor's only when actor is set.
func (w *auditLog) want(boardID, actor string) []string {
	var out []string
	es := w.entries[boardID]
	for i := len(es) - 1; i >= 0; i-- {
		for _, m := range es[i] {
			if actor == "" || w.actor[m] == actor {
				out = append(out, m)
			}
		}
	}
	return out
}

// list pages through a listing, size rows at a time, from cursor.
func (w *auditLog) list(f audit.Filter, cursor string, size int) []audit.Entry {
	w.t.Helper()
	var out []audit.Entry
	for {
		page, next, err := w.log.List(w.ctx, f, cursor, size)
		if err != nil {
			w.t.Fatal(err)
		}
		if len(page) > size || (next != "" && len(page) != size) {
			w.t.Fatalf("%+v: a page of %d rows, next %q", f, len(page), next)
		}
		out = append(out, page...)
		if next == "" {
			return out
		}
		cursor = next
	}
}

// check lists every view, size rows a page, and compares each with what
// was written: every row once, in order, across Redis and the archive.
func (w *auditLog) check(size int) {
	w.t.Helper()
	var boards []string
	for id := range w.entries {
		boards = append(boards, id)
	}
	slices.Sort(boards)
	members := func(es []audit.Entry, boardID string) []string {
		var out []string
		for _, e := range es {
			if boardID == "" || e.Board == boardID {
				out = append(out, e.Member)
			}
		}
		return out
	}
	same := func(what string, got, want []string) {
		w.t.Helper()
		if !slices.Equal(got, want) {
			w.t.Fatalf("%s: %d rows, want %d; first difference at %d:\n got %v\nwant %v", what, len(got), len(want), firstDiff(got, want), got, want)
		}
	}
	// Views that span boards merge them by entry id, so each board's
	// rows come in its own order, interleaved.
	all := w.list(audit.Filter{}, "", size)
	total := 0
	for _, id := range boards {
		total += len(w.want(id, ""))
		same("all, board "+id, members(all, id), w.want(id, ""))
		same("board "+id, members(w.list(audit.Filter{Board: id}, "", size), ""), w.want(id, ""))
		for _, actor := range auditActors {
			same("board "+id+" by "+actor, members(w.list(audit.Filter{Board: id, Actor: actor}, "", size), ""), w.want(id, actor))
		}
	}
	if len(all) != total {
		w.t.Fatalf("all: %d rows, want %d", len(all), total)
	}
	for _, actor := range auditActors {
		got := w.list(audit.Filter{Actor: actor}, "", size)
		n := 0
		for _, id := range boards {
			want := w.want(id, actor)
			n += len(want)
			same("by "+actor+", board "+id, members(got, id), want)
		}
		if len(got) != n {
			w.t.Fatalf("by %s: %d rows, want %d", actor, len(got), n)
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// streamRows is how many rows a stream holds, and how many the board's
// counts say it holds.
func (w *auditLog) streamRows(boardID, stream string) (held, counted int) {
	w.t.Helper()
	msgs, err := w.rdb.XRange(w.ctx, stream, "-", "+").Result()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, m := range msgs {
		n, _ := strconv.Atoi(fmt.Sprint(m.Values["n"]))
		held += n
	}
	counted, _ = w.rdb.HGet(w.ctx, redisstore.AuditRows(boardID), stream).Int()
	return held, counted
}

// bounded checks that a board's streams hold at most most rows each, as
// their counts say.
func (w *auditLog) bounded(boardID string, most int) {
	w.t.Helper()
	streams := []string{redisstore.AuditStream(boardID)}
	for _, actor := range auditActors {
		streams = append(streams, redisstore.AuditActorStream(boardID, actor))
	}
	for _, s := range streams {
		held, counted := w.streamRows(boardID, s)
		if held != counted || held > most {
			w.t.Fatalf("%s holds %d rows, counted %d; want at most %d", s, held, counted, most)
		}
	}
}

func (w *auditLog) archived(boardID string) int {
	w.t.Helper()
	var n int
	if err := w.a.DB.sql.QueryRowContext(w.ctx, w.a.DB.q(`SELECT COUNT(*) FROM archive_audit WHERE board = ?`), boardID).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// TestAuditArchive: once the archiver copies the audit log, Redis keeps what
// the archive lacks, trims what it holds, and the log pages on from Redis
// into the archive with every row once and in order, in every view; cursors
// handed out before a trim read on after it; copies repeat harmlessly; and
// with the archiver down Redis stays bounded and the loss is reported.
func TestAuditArchive(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		const keep = 100
		w := newAuditLog(t, db, keep, "chess", "golf")
		w.write("chess", 60, 1)
		w.write("golf", 3, 20)
		if n := w.copyAll(); n != 63 {
			t.Fatalf("first copy: %d entries", n)
		}
		// Rounds of writes past the cap, each copied before Redis reaches
		// twice it: nothing may be lost, though a trim that ignored the
		// archive would drop a third of each round.
		var cursor string
		var rest []string
		for round := range 5 {
			w.write("chess", 90, 1)
			w.write("chess", 2, 30)
			w.write("golf", 3, 25)
			if round == 1 { // a cursor whose rows Redis trims in later rounds
				var err error
				var page []audit.Entry
				if page, cursor, err = w.log.List(w.ctx, audit.Filter{Board: "chess"}, "", 7); err != nil || cursor == "" {
					t.Fatalf("page: %v %v", page, err)
				}
				rest = w.want("chess", "")[7:]
			}
			w.bounded("chess", 2*keep)
			w.copyAll()
			w.bounded("golf", 2*keep)
		}
		if held, _ := w.streamRows("chess", redisstore.AuditStream("chess")); held >= len(w.want("chess", "")) {
			t.Fatalf("Redis holds all %d rows of chess: the test does not reach the archive", held)
		}
		w.check(7)
		w.check(50)
		var got []string
		for _, e := range w.list(audit.Filter{Board: "chess"}, cursor, 9) {
			got = append(got, e.Member)
		}
		if !slices.Equal(got, rest) {
			t.Fatalf("after a cursor of a trimmed row: %d rows, want %d, first difference at %d", len(got), len(rest), firstDiff(got, rest))
		}

		// Copies again change nothing; nor does one after a crash that
		// committed the rows but never raised the mark.
		before := w.archived("chess")
		if n := w.copyAll(); n != 0 {
			t.Fatalf("a second copy added %d entries", n)
		}
		w.rdb.HDel(w.ctx, redisstore.AuditRows("chess"), auditMark)
		if n := w.copyAll(); n != 0 || w.archived("chess") != before {
			t.Fatalf("a copy from no mark added %d entries (%d before, %d after)", n, before, w.archived("chess"))
		}
		// The mark is never lowered.
		mark := w.rdb.HGet(w.ctx, redisstore.AuditRows("chess"), auditMark).Val()
		if got, _ := raiseMark.Run(w.ctx, w.rdb, []string{redisstore.AuditRows("chess")}, "1-0", auditMark).Text(); got != mark || w.rdb.HGet(w.ctx, redisstore.AuditRows("chess"), auditMark).Val() != mark {
			t.Fatalf("mark %s lowered to %s", mark, got)
		}
		w.check(13)

		// The archiver is down: Redis keeps twice the cap, drops the
		// oldest past it, and the next copy reports how many rows went.
		if strings.Contains(w.logs.String(), "dropped") {
			t.Fatalf("a loss was reported with the archiver running: %s", w.logs)
		}
		// (audit.Log.Record counts its row and leaves the trim to the
		// board's next write: one row more.)
		w.write("chess", 500, 1)
		w.bounded("chess", 2*keep+1)
		held, _ := w.streamRows("chess", redisstore.AuditStream("chess"))
		if held < 2*keep {
			t.Fatalf("with the archiver down chess holds %d rows, want %d", held, 2*keep)
		}
		w.copyAll()
		if s := w.logs.String(); !strings.Contains(s, "dropped") || !strings.Contains(s, fmt.Sprintf("board=chess rows=%d", 500-held)) || strings.Contains(s, "board=golf") {
			t.Fatalf("the loss is not reported: %s", s)
		}
		w.logs.Reset()
		w.copyAll()
		if w.logs.Len() > 0 {
			t.Fatalf("a loss reported twice: %s", w.logs)
		}
	})
}
