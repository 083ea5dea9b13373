// Package archive keeps closed periods in SQL: PostgreSQL when DATABASE_URL
// is set, an embedded SQLite file otherwise. A scheduler in every replica
// copies each closed period of every board from Redis soon after it closes,
// and once more after a grace period for late writes; a lock and a state in
// the board's hash slot make exactly one replica do each pass. Copies are
// idempotent (a period is replaced whole in one transaction), and checked:
// the archive must hold as many rows as Redis does.
package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL
	_ "modernc.org/sqlite"             // SQLite, pure Go
)

// DB is an archive database.
type DB struct {
	sql      *sql.DB
	postgres bool
	where    string // for messages, without credentials
}

// Open connects to PostgreSQL (a postgres:// or postgresql:// URL) or opens
// an SQLite file (any other value is its path; its folder is made), and
// brings the schema up to date.
func Open(ctx context.Context, target string) (*DB, error) {
	return open(ctx, target, len(migrations)-1)
}

// open is Open with the schema brought up to version upTo (tests make
// databases as earlier versions left them).
func open(ctx context.Context, target string, upTo int) (*DB, error) {
	db := &DB{}
	var err error
	if strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") {
		db.postgres = true
		db.where = "PostgreSQL " + redactURL(target)
		db.sql, err = sql.Open("pgx", target)
	} else {
		if target == "" {
			return nil, errors.New("archive: no database: set DATABASE_URL or ARCHIVE_PATH")
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o750); err != nil {
			return nil, fmt.Errorf("archive: make the folder of %s: %w", target, err)
		}
		db.where = "SQLite " + target
		// One connection writes at a time in SQLite; WAL lets reads go on
		// meanwhile. Transactions take the write lock when they begin
		// (immediate), so two processes never both start one and then
		// fail to write; the busy timeout waits for the other instead.
		db.sql, err = sql.Open("sqlite", "file:"+target+"?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
		if err == nil {
			// Readers (an export streaming a period, pages) go on beside
			// the one writer WAL allows.
			db.sql.SetMaxOpenConns(4)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("archive: open %s: %w", db.where, err)
	}
	err = db.sql.PingContext(ctx)
	// A new SQLite file turns to WAL on its first connection; replicas
	// opening it at once may find it locked for that instant, where SQLite
	// answers busy at once rather than waiting: try again, briefly.
	for try := 0; err != nil && !db.postgres && strings.Contains(err.Error(), "SQLITE_BUSY") && try < 50; try++ {
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(20+try*10) * time.Millisecond):
		}
		err = db.sql.PingContext(ctx)
	}
	if err != nil {
		db.sql.Close()
		return nil, fmt.Errorf("archive: cannot reach %s: %w", db.where, err)
	}
	if err := db.migrate(ctx, upTo); err != nil {
		db.sql.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// String says which database this is, without credentials.
func (db *DB) String() string { return db.where }

// q rewrites a query written with ? placeholders for the database at hand.
func (db *DB) q(query string) string {
	if !db.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// migrations are the schema's versions, applied in order, each once, each
// in a transaction; a short list of our own rather than a library, since it
// is two dialects of a few tables. Never edit one that has shipped: add one.
// Times are Unix microseconds; scores are the board's units as Redis keeps
// them, doubles (whole numbers exact up to 2^53, see board/score.go).
// {{C}} is byte-order collation where the database needs it said
// (PostgreSQL's default may follow a language's rules).
var migrations = []string{
	1: `
CREATE TABLE archive_periods (
  board       TEXT    NOT NULL,
  period      TEXT    NOT NULL, -- "week:2026-W47", as board.Period.String
  starts_at   BIGINT  NOT NULL,
  ends_at     BIGINT  NOT NULL,
  members     INTEGER NOT NULL,
  pass        INTEGER NOT NULL, -- 1: copied once it closed; 2: copied again after the grace period
  archived_at BIGINT  NOT NULL,
  definition  TEXT    NOT NULL, -- the board's definition (JSON) when archived: formats the scores later
  PRIMARY KEY (board, period)
);
CREATE TABLE archive_entries (
  board    TEXT    NOT NULL,
  period   TEXT    NOT NULL,
  position INTEGER NOT NULL, -- 0-based place in board order, ties broken as the board breaks them
  member   TEXT    NOT NULL,
  name     TEXT    NOT NULL,
  score    DOUBLE PRECISION NOT NULL, -- whole units of the board, exact to 2^53 (fractions only from outside ZINCRBY)
  rank     INTEGER NOT NULL, -- in the board's rank style
  fields   TEXT    NOT NULL, -- extra sort field values, a JSON array
  PRIMARY KEY (board, period, member)
);
CREATE UNIQUE INDEX archive_entries_position ON archive_entries (board, period, position);
`,
	2: `
CREATE INDEX archive_entries_member ON archive_entries (board, member); -- a member's history
`,
	3: `
ALTER TABLE archive_entries ADD COLUMN name_lc TEXT{{C}} NOT NULL DEFAULT ''; -- the name in lower case (Go's strings.ToLower), in byte order, for search by name
UPDATE archive_entries SET name_lc = lower(name); -- ASCII; lowerNames redoes the others in Go
CREATE INDEX archive_entries_name ON archive_entries (board, period, name_lc);
CREATE INDEX archive_entries_score ON archive_entries (board, period, score, position); -- score ranges, found by seeks
`,
	4: `
CREATE TABLE archive_audit (
  board  TEXT   NOT NULL,
  ms     BIGINT NOT NULL, -- the entry's id in the board's audit stream: <ms>-<seq>
  seq    BIGINT NOT NULL,
  actor  TEXT   NOT NULL,
  fields TEXT   NOT NULL, -- the stream entry's fields and values, a JSON object of strings (audit/entries.go reads them)
  PRIMARY KEY (board, ms, seq)
);
CREATE INDEX archive_audit_actor ON archive_audit (board, actor, ms, seq); -- a board's log by one actor
`,
	5: `
CREATE TABLE archive_teams (
  board    TEXT    NOT NULL,
  period   TEXT    NOT NULL,
  position INTEGER NOT NULL, -- 0-based place in board order, ties in Redis' order of team ids
  team     TEXT    NOT NULL,
  name     TEXT    NOT NULL, -- as shown: teams are named by their ids
  score    DOUBLE PRECISION NOT NULL, -- the sum, best or average of its members' scores, as Redis kept it (averages unrounded)
  rank     INTEGER NOT NULL, -- in the board's rank style
  members  INTEGER NOT NULL, -- the team's members with a score in the period
  PRIMARY KEY (board, period, team)
);
CREATE UNIQUE INDEX archive_teams_position ON archive_teams (board, period, position);
ALTER TABLE archive_periods ADD COLUMN teams INTEGER; -- rows in archive_teams; NULL: the team standing was not archived (a board without teams, or a copy made before this version)
`,
	6: `
CREATE TABLE archive_segments (
  board    TEXT    NOT NULL,
  period   TEXT    NOT NULL,
  attr     TEXT    NOT NULL, -- the attribute ("country")
  value    TEXT    NOT NULL, -- its value ("NO")
  position INTEGER NOT NULL, -- 0-based place within the segment, in board order
  member   TEXT    NOT NULL,
  rank     INTEGER NOT NULL, -- within the segment, in the board's rank style
  PRIMARY KEY (board, period, attr, value, position)
);
CREATE UNIQUE INDEX archive_segments_member ON archive_segments (board, period, attr, member); -- one value per attribute
ALTER TABLE archive_entries ADD COLUMN segments TEXT NOT NULL DEFAULT ''; -- the member's values when copied, a JSON object; '' none
ALTER TABLE archive_periods ADD COLUMN segments INTEGER; -- rows in archive_segments; NULL: copied before the archive kept segments
`,
	7: `
CREATE TABLE archive_league_results (
  board     TEXT    NOT NULL,
  period    TEXT    NOT NULL, -- a period of the league's kind
  member    TEXT{{C}} NOT NULL,
  tier      INTEGER NOT NULL, -- the tier it played the period in (0: the lowest)
  cohort    INTEGER NOT NULL, -- its cohort there (from 1); 0: idle, not placed
  rank      INTEGER NOT NULL, -- within its cohort, in the board's rank style; 0: no score
  move      INTEGER NOT NULL, -- 1 up, -1 down, 0 stay (board.Move)
  next_tier INTEGER NOT NULL, -- the tier it holds in the next period
  PRIMARY KEY (board, period, member)
);
CREATE INDEX archive_league_results_member ON archive_league_results (board, member); -- a member's league history
ALTER TABLE archive_periods ADD COLUMN cohorts INTEGER; -- rows of archive_segments that are league cohorts' (attr 'L'); NULL: copied before the archive kept cohorts
`,
	8: `
CREATE TABLE archive_race (
  board  TEXT    NOT NULL,
  period TEXT    NOT NULL,
  seq    INTEGER NOT NULL, -- 0-based place in the period's race, oldest first
  at     BIGINT  NOT NULL, -- when the member reached the score
  member TEXT    NOT NULL,
  score  DOUBLE PRECISION NOT NULL, -- whole units of the board, as Redis kept it
  PRIMARY KEY (board, period, seq)
);
CREATE INDEX archive_race_member ON archive_race (board, member); -- a member's points, for its erasure
`,
}

// after are steps in Go that a migration needs, run in its transaction.
var after = map[int]func(ctx context.Context, db *DB, tx *sql.Tx) error{3: lowerNames}

// lowerNames lower-cases, as Go does (and as searches are lowered), the
// names SQL's lower() left alone: those beyond ASCII.
func lowerNames(ctx context.Context, db *DB, tx *sql.Tx) error {
	bytes := `length(CAST(name AS BLOB))`
	if db.postgres {
		bytes = `octet_length(name)`
	}
	rs, err := tx.QueryContext(ctx, `SELECT board, period, member, name FROM archive_entries WHERE length(name) <> `+bytes)
	if err != nil {
		return err
	}
	type row struct{ board, period, member, name string }
	var rows []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.board, &r.period, &r.member, &r.name); err != nil {
			rs.Close()
			return err
		}
		rows = append(rows, r)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := tx.ExecContext(ctx, db.q(`UPDATE archive_entries SET name_lc = ? WHERE board = ? AND period = ? AND member = ?`),
			strings.ToLower(r.name), r.board, r.period, r.member); err != nil {
			return err
		}
	}
	return nil
}

// migrate applies the migrations up to version upTo that have not run.
func (db *DB) migrate(ctx context.Context, upTo int) error {
	if db.postgres {
		// Replicas starting at once take turns (DDL in PostgreSQL races
		// even with IF NOT EXISTS). The lock belongs to one connection.
		conn, err := db.sql.Conn(ctx)
		if err != nil {
			return fmt.Errorf("archive: migrate %s: %w", db.where, err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7243100553)`); err != nil {
			return fmt.Errorf("archive: migrate %s: %w", db.where, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(7243100553)`)
	}
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS archive_schema (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("archive: schema table in %s: %w", db.where, err)
	}
	for v := 1; v <= min(upTo, len(migrations)-1); v++ {
		if err := db.apply(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// apply runs one migration unless it ran. Replicas starting at once take
// turns: an advisory lock on PostgreSQL (migrate), the write lock (immediate
// transactions) on SQLite; whoever comes second finds the version applied.
func (db *DB) apply(ctx context.Context, v int) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("archive: migrate %s: %w", db.where, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM archive_schema WHERE version = ?`), v).Scan(&n); err != nil {
		return fmt.Errorf("archive: migrate %s: %w", db.where, err)
	}
	if n > 0 {
		return nil
	}
	collateC := "" // SQLite compares text as bytes already
	if db.postgres {
		collateC = ` COLLATE "C"`
	}
	for _, stmt := range strings.Split(stripComments(strings.ReplaceAll(migrations[v], "{{C}}", collateC)), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("archive: migration %d on %s: %w", v, db.where, err)
		}
	}
	if step := after[v]; step != nil {
		if err := step(ctx, db, tx); err != nil {
			return fmt.Errorf("archive: migration %d on %s: %w", v, db.where, err)
		}
	}
	if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO archive_schema (version, applied_at) VALUES (?, ?)`), v, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("archive: migration %d on %s: %w", v, db.where, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("archive: migration %d on %s: %w", v, db.where, err)
	}
	return nil
}

func stripComments(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// redactURL drops passwords from a database URL for messages: the user
// info's and a password query parameter.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a database URL that does not parse)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "***")
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "password") {
			q.Set(k, "***")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
