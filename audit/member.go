package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/redis/go-redis/v9"

	"podium/redisstore"
)

// A member's entries: the copy of a person's data lists them (About), and
// an erasure first reads what it will redact (NamesIn, Touches).

// ArchivedSearch finds archived entries of a board whose fields hold some
// text (package archive implements it beside Archived): candidates, newest
// first, older than an entry id ("" from the newest), at most n.
type ArchivedSearch interface {
	AuditHolding(ctx context.Context, boardID, text, before string, n int) ([]redis.XMessage, error)
}

// idLE says whether stream entry id a is at or before b.
func idLE(a, b string) bool {
	x, err1 := parseID(a)
	y, err2 := parseID(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return x.ms < y.ms || (x.ms == y.ms && x.seq <= y.seq)
}

// NamesIn reads streams for an erasure: the display names their entries up
// to cut show member with, and the streams that hold an entry about it.
func (l *Log) NamesIn(ctx context.Context, keys []string, member, cut string) ([]string, map[string]bool, error) {
	var names []string
	about := map[string]bool{}
	for _, k := range keys {
		err := scanStream(ctx, l.rdb, k, func(m redis.XMessage) {
			if !idLE(m.ID, cut) {
				return
			}
			f := fieldsOf(m)
			if About(f, member) {
				about[k] = true
				names = append(names, NamesIn(f, member)...)
			}
		})
		if err != nil {
			return nil, nil, fmt.Errorf("audit: read %s: %w", k, err)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), about, nil
}

// Touches says whether the redaction changes an entry of a stream.
func (l *Log) Touches(ctx context.Context, key string, r redisstore.Redaction) (bool, error) {
	hit := false
	err := scanStream(ctx, l.rdb, key, func(m redis.XMessage) {
		if !hit && idLE(m.ID, r.Cut) && Redact(fieldsOf(m), r) {
			hit = true
		}
	})
	if err != nil {
		return false, fmt.Errorf("audit: read %s: %w", key, err)
	}
	return hit, nil
}

// About lists a board's entries about member, newest first: from its
// stream in Redis, the stream earlier versions wrote, and the archive below
// what Redis holds. At most max; more says there were more.
func (l *Log) About(ctx context.Context, boardID, member string, max int) (entries []Entry, more bool, err error) {
	out, oldest, all, err := l.aboutIn(ctx, redisstore.AuditStream(boardID), member, max+1)
	if err != nil {
		return nil, false, err
	}
	legacy, _, _, err := l.aboutIn(ctx, legacyBoardKey+boardID, member, max+1)
	if err != nil {
		return nil, false, err
	}
	out = append(out, legacy...)
	if s, ok := l.archive.(ArchivedSearch); ok && all {
		got, err := l.aboutArchived(ctx, s, boardID, member, oldest, max+1)
		if err != nil {
			return nil, false, err
		}
		out = append(out, got...)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		x, _ := parseID(a.ID)
		y, _ := parseID(b.ID)
		return cmp.Or(cmp.Compare(y.ms, x.ms), cmp.Compare(y.seq, x.seq))
	})
	if len(out) > max {
		return out[:max], true, nil
	}
	return out, false, nil
}

// aboutIn reads a stream newest first for rows about member, up to n; all
// says it read the whole stream, whose oldest entry id is oldest ("" when
// it holds none).
func (l *Log) aboutIn(ctx context.Context, key, member string, n int) (out []Entry, oldest string, all bool, err error) {
	end := "+"
	for {
		msgs, err := l.rdb.XRevRangeN(ctx, key, end, "-", 256).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, "", false, fmt.Errorf("audit: read %s: %w", key, err)
		}
		out = appendAbout(out, msgs, member)
		if len(msgs) > 0 {
			oldest = msgs[len(msgs)-1].ID
		}
		if len(out) >= n {
			return out, oldest, false, nil
		}
		if len(msgs) < 256 {
			return out, oldest, true, nil
		}
		end = "(" + oldest
	}
}

// aboutArchived reads the archive below before for rows about member.
func (l *Log) aboutArchived(ctx context.Context, s ArchivedSearch, boardID, member, before string, n int) ([]Entry, error) {
	var out []Entry
	for len(out) < n {
		msgs, err := s.AuditHolding(ctx, boardID, member, before, 256)
		if err != nil {
			return nil, fmt.Errorf("audit: search the archive: %w", err)
		}
		out = appendAbout(out, msgs, member)
		if len(msgs) < 256 {
			break
		}
		before = msgs[len(msgs)-1].ID
	}
	return out, nil
}

// appendAbout adds the rows of msgs about member, each with its entry's id.
func appendAbout(out []Entry, msgs []redis.XMessage, member string) []Entry {
	for _, m := range msgs {
		for _, e := range entriesOf(m) {
			if e.Member == member {
				e.ID = m.ID
				out = append(out, e)
			}
		}
	}
	return out
}
