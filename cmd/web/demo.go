package main

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// demoBoard is a board the demo creates, its members, and how to make up a
// plausible score for one of them.
type demoBoard struct {
	def     board.Board
	names   []string
	op      board.Op
	score   func(r *rand.Rand, member int) float64
	perTick float64 // relative chance of being picked each tick
}

func demoBoards(tz string) []demoBoard {
	return []demoBoard{
		{
			def: board.Board{
				ID: "arcade", Title: "Neon Arcade", TimeZone: tz,
				Format:  board.Format{Type: board.Integer, Suffix: " pts"},
				Periods: []board.Kind{board.Daily, board.Weekly, board.Monthly, board.AllTime}, DefaultPeriod: board.Weekly,
			},
			names: []string{"NovaBlade", "PixelWitch", "ByteRider", "Glitchfox", "LunaLag", "RetroRex", "QuasarQ", "Mochi",
				"ZeroCool", "Kestrel", "SynthSam", "Volt", "Juniper", "DJ Tetra", "Orbit", "Blip", "Neon Nell", "Crash", "Yuki", "Marlowe",
				"Sprocket", "Fable", "Hexa", "Dusk"},
			op: board.Incr,
			score: func(r *rand.Rand, m int) float64 {
				skill := 1.6 - float64(m)/24 // earlier players are a bit better
				return math.Round(float64(50+r.IntN(400))*skill/10) * 10
			},
			perTick: 5,
		},
		{
			def: board.Board{
				ID: "sprint-100m", Title: "100 m Sprint", TimeZone: tz,
				Format: board.Format{Type: board.Duration}, Order: board.LowerIsBetter, RankStyle: board.Dense,
				Periods: []board.Kind{board.Weekly, board.Yearly, board.AllTime}, DefaultPeriod: board.AllTime,
			},
			names: []string{"Amara Okafor", "Liu Wen", "Jonas Berg", "Sofia Marquez", "Kwame Mensah", "Elena Rossi", "Tariq Haddad",
				"Maya Lindqvist", "Diego Alvarez", "Hana Sato", "Noah Fischer", "Zara Ahmed", "Luca Bianchi", "Ines Duarte", "Theo Laurent", "Priya Nair"},
			op: board.Best,
			score: func(r *rand.Rand, m int) float64 {
				base := 9900 + 45*float64(m) // hand-timed to the hundredth: ties happen
				return math.Round((base+r.NormFloat64()*120)/10) * 10
			},
			perTick: 2,
		},
		{
			def: board.Board{
				ID: "sales", Title: "Monthly Sales", TimeZone: tz,
				Format:  board.Format{Type: board.Decimal, Decimals: 2, Prefix: "$"},
				Periods: []board.Kind{board.Monthly, board.Yearly}, DefaultPeriod: board.Monthly,
			},
			names: []string{"Grace Kim", "Oliver Hughes", "Fatima Zahra", "Ben Carter", "Chloe Dubois", "Raj Patel", "Emma Novak",
				"Sam Rivera", "Ava Thompson", "Leo Schmidt", "Nina Petrova", "Marcus Reid"},
			op: board.Incr,
			score: func(r *rand.Rand, m int) float64 { // in cents, the board's unit
				return math.Round((200 + r.ExpFloat64()*900) * (1.3 - float64(m)/30) * 100)
			},
			perTick: 1,
		},
	}
}

func memberID(name string) string {
	return strings.ToLower(strings.NewReplacer(" ", "-", ".", "").Replace(name))
}

// runDemo creates the demo boards (leaving existing ones alone), fills their
// past periods and the current ones, then submits a score every few hundred
// milliseconds until ctx ends.
func runDemo(ctx context.Context, store *board.Store, rdb *redis.Client, cfg Config, log *slog.Logger) {
	boards := demoBoards(cfg.TimeZone)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for i := range boards {
		d := &boards[i]
		b, err := store.CreateBoard(ctx, d.def)
		if errors.Is(err, board.ErrExists) {
			log.Info("demo board exists; leaving its data alone", slog.String("board", d.def.ID))
			continue
		}
		if err != nil {
			log.Error("create demo board", slog.String("board", d.def.ID), slog.Any("error", err))
			return
		}
		if err := seedDemo(ctx, store, rdb, &b, d, r); err != nil {
			log.Error("seed demo board", slog.String("board", b.ID), slog.Any("error", err))
			return
		}
		log.Info("demo board ready", slog.String("board", b.ID), slog.String("title", b.Title))
	}
	total := 0.0
	for _, d := range boards {
		total += d.perTick
	}
	tick := time.NewTicker(350 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		pick := r.Float64() * total
		d := &boards[0]
		for i := range boards {
			if pick -= boards[i].perTick; pick < 0 {
				d = &boards[i]
				break
			}
		}
		m := r.IntN(len(d.names))
		_, err := store.Submit(ctx, d.def.ID, board.Submission{Member: memberID(d.names[m]), Name: d.names[m], Score: d.score(r, m), Op: d.op})
		if err != nil && ctx.Err() == nil {
			log.Warn("demo submission", slog.String("board", d.def.ID), slog.Any("error", err))
		}
	}
}

// seedDemo fills the previous periods (written through a store whose clock is
// set in the past) and the current ones, so every tab and the previous-period
// links have something to show.
func seedDemo(ctx context.Context, store *board.Store, rdb *redis.Client, b *board.Board, d *demoBoard, r *rand.Rand) error {
	now := store.Now()
	var times []time.Time
	for _, k := range b.Periods {
		if k != board.AllTime {
			times = append(times, b.Current(k, now).Prev().Start.Add(13*time.Hour))
		}
	}
	times = append(times, now)
	for _, at := range times {
		clock := at
		s := board.NewStore(rdb, board.WithClock(func() time.Time { clock = clock.Add(37 * time.Second); return clock }))
		if at.Equal(now) {
			s = store
		}
		for round := range 4 {
			for m, name := range d.names {
				if r.IntN(4) == 0 && round > 0 {
					continue
				}
				sub := board.Submission{Member: memberID(name), Name: name, Score: d.score(r, m), Op: d.op}
				if _, err := s.Submit(ctx, b.ID, sub); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
