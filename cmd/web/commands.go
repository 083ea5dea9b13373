package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"podium/access"
	"podium/app"
	"podium/audit"
	"podium/redisstore"
)

// runCommand runs the set-up subcommands:
//
//	web admin create --user NAME        (password read from standard input)
//	web apikey create --name NAME [--board BOARD] [--read-only]
//
// They talk to REDIS_URL: the embedded store lives inside a running server,
// where the admin console does the same.
func runCommand(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) < 2 || args[1] != "create" {
		return fmt.Errorf("usage: web admin create --user NAME | web apikey create --name NAME [--board BOARD] [--read-only]")
	}
	fs := flag.NewFlagSet(args[0]+" create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.String("user", "", "admin user name (admin create)")
	name := fs.String("name", "", "what the key is for, e.g. \"game server\" (apikey create)")
	boardID := fs.String("board", "", "the one board the key may act on; empty for all boards (apikey create)")
	readOnly := fs.Bool("read-only", false, "a key that reads private boards and writes nothing (apikey create)")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	cfg, err := app.ParseConfig(nil, getenv, io.Discard)
	if err != nil {
		return err
	}
	if cfg.Embedded() {
		return errors.New("set REDIS_URL (or REDIS_CLUSTER_ADDRS, or REDIS_SENTINEL_ADDRS) to the Redis the server uses; with the embedded store, create admins with ADMIN_USER/ADMIN_PASSWORD and keys in the admin console")
	}
	rdb, _, err := app.DialRedis(ctx, cfg)
	if err != nil {
		return err
	}
	defer rdb.Close()
	log := audit.New(rdb)
	switch args[0] {
	case "admin":
		if *user == "" {
			return errors.New("admin create needs --user NAME")
		}
		fmt.Fprintf(stderr, "Password for %s (at least %d characters), then Enter: ", *user, access.MinPassword)
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("read the password from standard input: %w", err)
		}
		if err := access.NewAccounts(rdb, passwordCost).Create(ctx, *user, strings.TrimRight(line, "\r\n")); err != nil {
			return err
		}
		_ = log.Record(ctx, audit.Entry{Actor: "cli", Action: "admin.create", After: *user})
		fmt.Fprintf(stdout, "created admin %s\n", *user)
	case "apikey":
		if *boardID != "" {
			if _, err := redisstore.NewStore(rdb).Board(ctx, *boardID); err != nil {
				return err
			}
		}
		key, secret, err := access.NewKeys(rdb).Create(ctx, *name, *boardID, *readOnly)
		if err != nil {
			return err
		}
		scope := "all boards"
		if key.Board != "" {
			scope = "board " + key.Board
		}
		after := key.Name + " (" + key.ID + ")"
		if key.ReadOnly {
			scope += ", read only"
			after += ", read only"
		}
		_ = log.Record(ctx, audit.Entry{Actor: "cli", Action: "apikey.create", Board: key.Board, After: after})
		fmt.Fprintf(stderr, "API key %q for %s (shown once; keep it secret):\n", key.Name, scope)
		fmt.Fprintln(stdout, secret)
	}
	return nil
}
