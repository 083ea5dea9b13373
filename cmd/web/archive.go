package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"podium/app"
	"podium/archive"
	"podium/board"
	"podium/redisstore"
)

// runArchive runs the archive subcommands against REDIS_URL and the archive
// database the server uses (DATABASE_URL, or ARCHIVE_PATH):
//
//	web archive run [--board ID] [--period KIND --at KEY]   copy closed periods now
//	web archive status                                      what is archived, pending, in progress
func runArchive(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	usage := errors.New("usage: web archive run [--board ID] [--period KIND --at KEY] | web archive status")
	if len(args) == 0 || (args[0] != "run" && args[0] != "status") {
		return usage
	}
	fs := flag.NewFlagSet("archive "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	boardID := fs.String("board", "", "only this board")
	kind := fs.String("period", "", "only this kind of period: day, week, month or year (with --at)")
	at := fs.String("at", "", "the period's key, e.g. 2026-W47 (with --period)")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w (%v)", usage, err)
	}
	if (*kind == "") != (*at == "") || (*kind != "" && *boardID == "") {
		return errors.New("--period and --at go together, with --board")
	}
	cfg, err := app.ParseConfig(nil, getenv, io.Discard)
	if err != nil {
		return err
	}
	if cfg.Embedded() {
		return errors.New("set REDIS_URL (or REDIS_CLUSTER_ADDRS, or REDIS_SENTINEL_ADDRS) to the Redis the server uses (the embedded store lives inside a running server, which archives by itself)")
	}
	rdb, _, err := app.DialRedis(ctx, cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	db, err := archive.Open(ctx, cfg.ArchiveTarget())
	if err != nil {
		return err
	}
	defer db.Close()
	store := redisstore.NewStore(rdb)
	c := archiveCommand{store: store, db: db, board: *boardID, out: stdout,
		// Warnings (audit rows dropped before they were archived) reach the operator.
		a: &archive.Archiver{Store: store, DB: db, Grace: cfg.ArchiveGrace, Log: slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: slog.LevelWarn}))}}
	switch {
	case *kind != "":
		return c.one(ctx, *kind, *at)
	case args[0] == "status":
		return c.status(ctx)
	}
	return c.all(ctx)
}

// archiveCommand is one `web archive` run.
type archiveCommand struct {
	store *redisstore.Store
	db    *archive.DB
	a     *archive.Archiver
	board string // "": every board
	out   io.Writer
}

// discover notes the periods written straight into Redis (a game server's
// ZINCRBY), the whole keyspace walked, so that they are listed and copied
// like the app's own.
func (c archiveCommand) discover(ctx context.Context) (int, error) { return c.a.Discover(ctx, 0) }

func (c archiveCommand) status(ctx context.Context) error {
	if _, err := c.discover(ctx); err != nil {
		return err
	}
	st, err := c.a.Statuses(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOARD\tPERIOD\tIN REDIS\tARCHIVED\tSTATE")
	for _, s := range st {
		if c.board == "" || s.Board == c.board {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", s.Board, s.Period, s.InRedis, s.Archived, s.State)
		}
	}
	fmt.Fprintf(tw, "(archive: %s)\n", c.db)
	return tw.Flush()
}

// one copies the period --period and --at name (again, if it has its copy).
func (c archiveCommand) one(ctx context.Context, kind, at string) error {
	b, err := c.store.Board(ctx, c.board)
	if err != nil {
		return err
	}
	if k, err := board.ParseKind(kind); err == nil && !k.Calendar() {
		return fmt.Errorf("%s never closes, so it is not archived", k)
	}
	p, err := b.ParsePeriod(kind, at, c.store.Now())
	if err != nil {
		return err
	}
	n, err := c.a.Period(ctx, &b, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "archived %s of %s: %d members\n", p, b.ID, n)
	return nil
}

// all copies every closed period whose final copy is not made yet (one
// that fails is reported and the rest go on), expires what is beyond each
// board's retention, and copies the audit log.
func (c archiveCommand) all(ctx context.Context) error {
	found, err := c.discover(ctx)
	if err != nil {
		return err
	}
	if found > 0 {
		fmt.Fprintf(c.out, "found %d %s written straight into Redis\n", found, plural(found, "period", "periods"))
	}
	boards, errs, err := c.copyClosed(ctx)
	if err != nil {
		return err
	}
	errs = append(errs, c.settle(ctx, boards)...)
	if c.board == "" {
		n, err := c.a.CopyAudit(ctx)
		if err != nil {
			fmt.Fprintf(c.out, "audit log not fully archived: %v\n", err)
			errs = append(errs, err)
		} else if n > 0 {
			fmt.Fprintf(c.out, "archived %d audit log %s\n", n, plural(n, "entry", "entries"))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d archiving steps failed (above)", len(errs))
	}
	return nil
}

// copyClosed makes the final copies due; it returns the boards it looked
// at and the copies that failed.
func (c archiveCommand) copyClosed(ctx context.Context) (map[string]bool, []error, error) {
	st, err := c.a.Statuses(ctx)
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	done := 0
	boards := map[string]bool{}
	for _, s := range st {
		if c.board != "" && s.Board != c.board {
			continue
		}
		boards[s.Board] = true
		if !s.Copy {
			continue
		}
		b, err := c.store.Board(ctx, s.Board)
		if err == nil {
			var n int
			if n, err = c.a.Period(ctx, &b, s.Period); err == nil {
				fmt.Fprintf(c.out, "archived %s of %s: %d members\n", s.Period, s.Board, n)
				done++
				continue
			}
		}
		fmt.Fprintf(c.out, "not archived: %s of %s: %v\n", s.Period, s.Board, err)
		errs = append(errs, err)
	}
	if done == 0 && len(errs) == 0 {
		fmt.Fprintln(c.out, "nothing to archive: every closed period has its final copy (--period and --at copy one again)")
	}
	return boards, errs, nil
}

// settle expires from Redis the closed periods beyond each board's retention.
func (c archiveCommand) settle(ctx context.Context, boards map[string]bool) []error {
	var errs []error
	for id := range boards {
		b, err := c.store.Board(ctx, id)
		if err != nil {
			continue // deleted meanwhile
		}
		n, err := c.a.Settle(ctx, &b)
		if err != nil {
			fmt.Fprintf(c.out, "not expired: %s: %v\n", id, err)
			errs = append(errs, err)
		}
		if n > 0 {
			fmt.Fprintf(c.out, "expiring from Redis: %d closed %s of %s (it keeps %d of each kind)\n", n, plural(n, "period", "periods"), id, b.Retention)
		}
	}
	return errs
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
