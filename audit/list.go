package audit

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"podium/board"
	"podium/redisstore"
)

// Listing: the board streams, their actors' copies, the global streams and
// the archive, merged newest first behind one cursor.

// Filter narrows a listing; an empty field matches everything.
type Filter struct {
	Board string
	Actor string
	// After, a stream id (Cut), keeps the entries after it only: the log
	// of the board that now has the id, not of an earlier one. Whatever
	// the cursor, nothing at or before it is listed.
	After string
}

// source is one stream a listing reads, and which of its entries it keeps.
// A board's stream, or its actor's, goes on in the archive: board, and
// actor for an actor's stream, say which part of it.
type source struct {
	key   string
	tag   string // short stable name of key, part of cursors; the archive's rows share it
	match func(Entry) bool
	board string // "": the stream has no archive
	actor string
	floor *streamID // entries at or before it end the stream (Filter.After)
}

// archived marks a source as a board's stream (actor "") or a board actor's,
// which the archive continues.
func (s source) archived(boardID, actor string) source {
	s.board, s.actor = boardID, actor
	return s
}

func newSource(key string, match func(Entry) bool) source {
	h := fnv.New64a()
	h.Write([]byte(key))
	return source{key: key, tag: fmt.Sprintf("%016x", h.Sum64()), match: match}
}

// sources lists the streams a filter reads.
func (l *Log) sources(ctx context.Context, f Filter) ([]source, error) {
	onBoard := func(e Entry) bool { return e.Board == f.Board }
	switch {
	case f.Board != "" && f.Actor != "":
		return []source{newSource(redisstore.AuditActorStream(f.Board, f.Actor), nil).archived(f.Board, f.Actor), newSource(actorKey+f.Actor, onBoard)}, nil
	case f.Board != "":
		return []source{newSource(redisstore.AuditStream(f.Board), nil).archived(f.Board, ""), newSource(legacyBoardKey+f.Board, nil)}, nil
	}
	ids, err := l.boards(ctx)
	if err != nil {
		return nil, err
	}
	if f.Actor == "" {
		out := []source{newSource(allKey, nil)}
		for _, id := range ids {
			out = append(out, newSource(redisstore.AuditStream(id), nil).archived(id, ""))
		}
		return out, nil
	}
	// Only the boards the actor changed.
	cmds := make([]*redis.BoolCmd, len(ids))
	if _, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.SIsMember(ctx, redisstore.AuditActors(id), f.Actor)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("audit: list: %w", err)
	}
	out := []source{newSource(actorKey+f.Actor, nil)}
	for i, id := range ids {
		if cmds[i].Val() {
			out = append(out, newSource(redisstore.AuditActorStream(id, f.Actor), nil).archived(id, f.Actor))
		}
	}
	return out, nil
}

// Boards lists the ids of every board that may have entries, sorted: the
// boards that exist and the deleted ones whose log remains.
func (l *Log) Boards(ctx context.Context) ([]string, error) { return l.boards(ctx) }

func (l *Log) boards(ctx context.Context) ([]string, error) {
	var live, audited *redis.StringSliceCmd
	if _, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		live = p.SMembers(ctx, redisstore.BoardsKey)
		audited = p.SMembers(ctx, redisstore.AuditedKey)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("audit: list boards: %w", err)
	}
	ids := append(live.Val(), audited.Val()...)
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// List returns up to n entries, newest first, after the cursor ("" starts
// at the newest), and the cursor of the next page ("" at the end). A batch of
// scores is one entry in its stream and one row per score here. The streams
// are merged lazily: each is read a few entries at a time (all of them in one
// pipeline), and only as far as the page needs; a board's stream that ends in
// Redis goes on in the archive, read the same way (all of them in one query).
func (l *Log) List(ctx context.Context, f Filter, cursor string, n int) ([]Entry, string, error) {
	var after *place
	end, before := "+", ""
	if cursor != "" {
		c, err := parseCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		if c.id == (streamID{}) { // the first possible id: nothing is older
			return nil, "", nil
		}
		after, end = &c, c.id.String()
		// The archive's first read takes the cursor's entry too (its
		// other rows may follow the cursor), unless Redis holds it.
		before = streamID{c.id.ms, c.id.seq + 1}.String()
	}
	srcs, err := l.sources(ctx, f)
	if err != nil {
		return nil, "", err
	}
	if f.After != "" {
		floor, err := parseID(f.After)
		if err != nil {
			return nil, "", fmt.Errorf("audit: list after %q: %w", f.After, err)
		}
		for i := range srcs {
			srcs[i].floor = &floor
		}
	}
	streams := make([]*reader, len(srcs))
	for i, src := range srcs {
		streams[i] = &reader{src: src, end: end, before: before, chunk: 8}
	}
	var rows []row
	for len(rows) <= n {
		var empty []*reader
		for _, r := range streams {
			if len(r.buf) == 0 && !r.done {
				empty = append(empty, r)
			}
		}
		if len(empty) > 0 { // every stream shows its next row before one is chosen
			if err := l.fill(ctx, empty, after); err != nil {
				return nil, "", err
			}
			continue
		}
		var best *reader
		for _, r := range streams {
			if len(r.buf) > 0 && (best == nil || r.buf[0].at.compare(best.buf[0].at) < 0) {
				best = r
			}
		}
		if best == nil {
			break
		}
		rows = append(rows, best.buf[0])
		best.buf = best.buf[1:]
	}
	next := ""
	if len(rows) > n {
		rows = rows[:n]
		next = rows[n-1].at.String()
	}
	out := make([]Entry, len(rows))
	for i, r := range rows {
		out[i] = r.Entry
		out[i].ID = r.at.String()
	}
	return out, next, nil
}

type row struct {
	Entry
	at place
}

// reader walks one stream of a listing backwards: in Redis, then, for a
// board's streams, in the archive.
type reader struct {
	src       source
	end       string // where the next read of Redis starts (inclusive, or "(" exclusive)
	before    string // where the next read of the archive starts: older entries only; "" from the newest
	chunk     int    // entries per read, doubling up to 256
	buf       []row  // rows read and not yet listed, in listing order
	inArchive bool   // Redis has no older entries: the archive goes on
	floored   bool   // it reached its source's floor: nothing older is listed
	done      bool
}

// fill reads the next entries of each reader: of Redis in one pipeline, of
// the archive in one query.
func (l *Log) fill(ctx context.Context, all []*reader, after *place) error {
	var rs, archived []*reader
	for _, r := range all {
		if r.inArchive {
			archived = append(archived, r)
		} else {
			rs = append(rs, r)
		}
	}
	if len(archived) > 0 {
		if err := l.fillArchived(ctx, archived, after); err != nil {
			return err
		}
	}
	if len(rs) == 0 {
		return nil
	}
	cmds := make([]*redis.XMessageSliceCmd, len(rs))
	if _, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, r := range rs {
			cmds[i] = p.XRevRangeN(ctx, r.src.key, r.end, "-", int64(r.chunk))
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("audit: list: %w", err)
	}
	for i, r := range rs {
		msgs, err := cmds[i].Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("audit: list %s: %w", r.src.key, err)
		}
		r.keep(msgs, after)
		if len(msgs) > 0 {
			r.before = msgs[len(msgs)-1].ID // the archive goes on below the oldest entry in Redis
		}
		if r.floored {
			r.done = true
			continue
		}
		if len(msgs) < r.chunk {
			r.done = true
			if l.archive != nil && r.src.board != "" {
				r.done, r.inArchive = false, true
			}
		} else {
			r.end = "(" + msgs[len(msgs)-1].ID
			r.chunk = min(2*r.chunk, 256)
		}
	}
	return nil
}

// keep adds the rows of messages (newest first) that the listing shows.
func (r *reader) keep(msgs []redis.XMessage, after *place) {
	for _, m := range msgs {
		id, err := parseID(m.ID)
		if err != nil {
			continue // not written by this package
		}
		if f := r.src.floor; f != nil && (id.ms < f.ms || (id.ms == f.ms && id.seq <= f.seq)) {
			r.floored = true // newest first: the rest is older still
			return
		}
		for k, e := range entriesOf(m) {
			at := place{id: id, src: r.src.tag, item: k}
			if (after != nil && at.compare(*after) <= 0) || (r.src.match != nil && !r.src.match(e)) {
				continue
			}
			r.buf = append(r.buf, row{Entry: e, at: at})
		}
	}
}

// Actors lists who has made changes, sorted.
func (l *Log) Actors(ctx context.Context) ([]string, error) {
	ids, err := l.boards(ctx)
	if err != nil {
		return nil, err
	}
	cmds := make([]*redis.StringSliceCmd, len(ids)+1)
	if _, err := l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		cmds[0] = p.SMembers(ctx, actorSet)
		for i, id := range ids {
			cmds[i+1] = p.SMembers(ctx, redisstore.AuditActors(id))
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("audit: actors: %w", err)
	}
	var out []string
	for _, c := range cmds {
		out = append(out, c.Val()...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// streamID is a stream entry id, "<milliseconds>-<sequence>".
type streamID struct{ ms, seq uint64 }

func parseID(s string) (streamID, error) {
	ms, seq, ok := strings.Cut(s, "-")
	if ok {
		a, err1 := strconv.ParseUint(ms, 10, 64) // no sign, no spaces, no overflow
		b, err2 := strconv.ParseUint(seq, 10, 64)
		if err1 == nil && err2 == nil {
			return streamID{a, b}, nil
		}
	}
	return streamID{}, fmt.Errorf("%w %q: want an entry id like 1767225600000-0", ErrBadCursor, s)
}

func (id streamID) String() string { return fmt.Sprintf("%d-%d", id.ms, id.seq) }

// place orders the rows of a listing: newest entry first, then by stream,
// then by item within the entry. A cursor is the last row's place.
type place struct {
	id   streamID
	src  string
	item int
}

// compare is negative when p comes first in a listing.
func (p place) compare(q place) int {
	switch {
	case p.id.ms != q.id.ms:
		return cmpDesc(p.id.ms, q.id.ms)
	case p.id.seq != q.id.seq:
		return cmpDesc(p.id.seq, q.id.seq)
	case p.src != q.src:
		return strings.Compare(p.src, q.src)
	}
	return p.item - q.item
}

func cmpDesc(a, b uint64) int {
	if a > b {
		return -1
	}
	return 1
}

func (p place) String() string { return fmt.Sprintf("%s.%s.%d", p.id, p.src, p.item) }

// parseCursor reads a place back. A bare entry id (what earlier versions
// handed out) stands after every row of that id.
func parseCursor(s string) (place, error) {
	idText, rest, found := strings.Cut(s, ".")
	id, err := parseID(idText)
	if err != nil {
		return place{}, err
	}
	if !found {
		return place{id: id, src: "~"}, nil // '~' sorts after every tag
	}
	src, item, ok := strings.Cut(rest, ".")
	n, err := strconv.Atoi(item)
	if !ok || len(src) != 16 || strings.Trim(src, "0123456789abcdef") != "" || err != nil || n < 0 || n > board.MaxBatch || strconv.Itoa(n) != item {
		return place{}, fmt.Errorf("%w %q", ErrBadCursor, s)
	}
	return place{id: id, src: src, item: n}, nil
}
