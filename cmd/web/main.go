// Command web serves Podium: live leaderboards on Redis. It reads the
// configuration, hands it to package app, and turns the outcome into an
// exit code; `web admin`, `web apikey` and `web archive` are its set-up and
// operations commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // boards name IANA zones; the binary must know them on any host

	"podium/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { // a second signal during the drain ends the process at once
		<-ctx.Done()
		stop()
	}()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

// passwordCost is the bcrypt cost of the passwords run and its commands
// hash: 0, bcrypt's default, in the binary; the tests set the lowest, as
// one hash or check at the default cost takes seconds under the race
// detector on a busy machine.
var passwordCost int

// run serves until ctx ends (app.App.Run says in which order it stops), or
// runs a command.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "admin" || args[0] == "apikey") {
		return runCommand(ctx, args, getenv, os.Stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "archive" {
		return runArchive(ctx, args[1:], getenv, stdout)
	}
	cfg, err := app.ParseConfig(args, getenv, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, app.NewLogger(cfg, stderr), app.WithPasswordCost(passwordCost))
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := a.Listen()
	if err != nil {
		return err
	}
	return a.Run(ctx, ln, stdout)
}
