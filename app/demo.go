package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/audit"
	"podium/board"
	"podium/redisstore"
)

// demoBoard is a board the demo creates, its members, and how to make up a
// plausible score for one of them.
type demoBoard struct {
	def     board.Board
	names   []string
	op      board.Op
	score   func(r *rand.Rand, member int) float64
	perTick float64  // relative chance of being picked each tick
	teams   []string // members join these in turn; nil: no teams
	country []string // members' values of the board's "country" attribute, in turn; nil: none
}

// segmentsOf is demo member m's segment values (nil: none).
func (db *demoBoard) segmentsOf(m int) map[string]string {
	if len(db.country) == 0 {
		return nil
	}
	return map[string]string{"country": db.country[m%len(db.country)]}
}

// teamOf is the team demo member m plays for ("" none).
func (db *demoBoard) teamOf(m int) string {
	if len(db.teams) == 0 {
		return ""
	}
	return db.teams[m%len(db.teams)]
}

func demoBoards(tz string) []demoBoard {
	return []demoBoard{
		{
			def: board.Board{
				ID: "arcade", Title: "Neon Arcade", TimeZone: tz,
				Format:  board.Format{Type: board.Integer, Suffix: " pts"},
				Periods: []board.Kind{board.Daily, board.Weekly, board.Monthly, board.AllTime, board.Last24h, board.Last7d}, DefaultPeriod: board.Weekly,
				Retention: board.DefaultRetention,
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
				Periods: []board.Kind{board.Weekly, board.Yearly, board.Custom, board.AllTime, board.Last30d}, DefaultPeriod: board.AllTime, Window: board.WindowBest,
				Retention: board.DefaultRetention, Schedule: "0 18 * * FRI", ScheduleName: "Meet", // a meet from Friday 18:00 to the next
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
				Retention: board.DefaultRetention, Teams: board.TeamsSum,
			},
			teams: []string{"North", "South", "East", "West"},
			names: []string{"Grace Kim", "Oliver Hughes", "Fatima Zahra", "Ben Carter", "Chloe Dubois", "Raj Patel", "Emma Novak",
				"Sam Rivera", "Ava Thompson", "Leo Schmidt", "Nina Petrova", "Marcus Reid"},
			op: board.Incr,
			score: func(r *rand.Rand, m int) float64 { // in cents, the board's unit
				return math.Round((200 + r.ExpFloat64()*900) * (1.3 - float64(m)/30) * 100)
			},
			perTick: 1,
		},
		{
			// A weekly league: cohorts of 8 in three tiers, the top 2 up and
			// the bottom 2 down; last week closes once the app's archiver
			// runs, so this week starts with members moved.
			def: board.Board{
				ID: "arena", Title: "Arena League", TimeZone: tz,
				Format:  board.Format{Type: board.Integer, Suffix: " pts"},
				Periods: []board.Kind{board.Weekly, board.AllTime}, DefaultPeriod: board.Weekly,
				Retention: board.DefaultRetention, Segments: []string{"country"},
				League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 8, Promote: 2, Relegate: 2},
			},
			country: []string{"NO", "SE", "DK", "FI", "IS"},
			names: []string{"Astrid", "Bjorn", "Cecilie", "Dag", "Elin", "Freya", "Gunnar", "Hedda", "Ivar", "Johanna", "Kari", "Leif",
				"Maja", "Nils", "Oda", "Petter", "Ragna", "Sindre", "Tuva", "Ulf", "Vilde", "Yngve", "Aase", "Eirik"},
			op: board.Incr,
			score: func(r *rand.Rand, m int) float64 {
				return float64(10 + r.IntN(90) + (24-m)*2)
			},
			perTick: 3,
		},
	}
}

func memberID(name string) string {
	return strings.ToLower(strings.NewReplacer(" ", "-", ".", "").Replace(name))
}

// DemoBoardsKey marks the boards the demo made in this store: board id ->
// the board's creation time. A board with a demo id but no matching mark was
// made by someone else (or deleted and made again), and the demo never writes
// to it. It sits under podium:, apart from the boards, so board/ needs to
// know nothing of the demo; it is one plain key (a Redis Cluster is fine with
// that, as nothing reads it together with a board's keys).
const DemoBoardsKey = "podium:demo:boards"

// DemoActor is who the audit log says made the demo's changes.
const DemoActor = "demo"

// demo is a prepared demo: its boards exist in the store and are its own.
type demo struct {
	store  *redisstore.Store
	rdb    redis.UniversalClient
	audit  *audit.Log
	log    *slog.Logger
	boards []demoBoard
	marks  map[string]string // board id -> creation time, as in DemoBoardsKey
	fresh  []int             // boards made now, to be filled with history
}

// prepareDemo makes sure every demo board exists and is the demo's own. It
// refuses, writing nothing, a store that holds a board with a demo id that
// the demo did not make: demo scores are random, and a real board's scores
// are someone's data. Boards it made on an earlier start are used again.
func prepareDemo(ctx context.Context, store *redisstore.Store, rdb redis.UniversalClient, cfg Config, log *slog.Logger) (*demo, error) {
	d := &demo{store: store, rdb: rdb, audit: audit.New(rdb), log: log, boards: demoBoards(cfg.TimeZone)}
	marks, err := rdb.HGetAll(ctx, DemoBoardsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("demo: read %s: %w", DemoBoardsKey, err)
	}
	d.marks = marks
	var missing []int
	var foreign []string
	for i, db := range d.boards {
		b, err := store.Board(ctx, db.def.ID)
		switch {
		case errors.Is(err, board.ErrNotFound):
			missing = append(missing, i)
		case err != nil:
			return nil, fmt.Errorf("demo: %w", err)
		case marks[b.ID] != createdMark(b):
			foreign = append(foreign, b.ID)
		default:
			log.Info("demo board exists from an earlier start; carrying on", slog.String("board", b.ID))
		}
	}
	if len(foreign) > 0 {
		return nil, fmt.Errorf("demo: this store already has boards the demo did not make (%s); --demo writes only to boards it made itself. "+
			"Point REDIS_URL at an empty database (e.g. redis://host:6379/15) or run without --demo", strings.Join(foreign, ", "))
	}
	for _, i := range missing {
		b, err := store.CreateBoard(ctx, d.boards[i].def)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err) // ErrExists: someone made it since we looked
		}
		mark := createdMark(b)
		if err := rdb.HSet(ctx, DemoBoardsKey, b.ID, mark).Err(); err != nil {
			return nil, fmt.Errorf("demo: mark board %q as the demo's: %w", b.ID, err)
		}
		d.marks[b.ID] = mark
		d.fresh = append(d.fresh, i)
	}
	return d, nil
}

// createdMark is what DemoBoardsKey holds for a board: its creation time,
// which a board deleted and made again does not share.
func createdMark(b board.Board) string { return b.Created.UTC().Format(time.RFC3339Nano) }

// run fills the boards made now with past and current scores, then submits a
// score every few hundred milliseconds until ctx ends.
func (d *demo) run(ctx context.Context) {
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for _, i := range d.fresh {
		db := &d.boards[i]
		b, err := d.own(ctx, db.def.ID)
		if err == nil {
			err = d.seed(ctx, &b, db, r)
		}
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("seed demo board", slog.String("board", db.def.ID), slog.Any("error", err))
			}
			return
		}
		d.log.Info("demo board ready", slog.String("board", b.ID), slog.String("title", b.Title))
	}
	tick := time.NewTicker(350 * time.Millisecond)
	defer tick.Stop()
	for len(d.boards) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		total := 0.0
		for _, db := range d.boards {
			total += db.perTick
		}
		pick := r.Float64() * total
		i := 0
		for ; i < len(d.boards)-1; i++ {
			if pick -= d.boards[i].perTick; pick < 0 {
				break
			}
		}
		db := &d.boards[i]
		b, err := d.own(ctx, db.def.ID)
		if errors.Is(err, errNotDemo) {
			d.log.Error("demo board was replaced by another board; the demo stops writing to it", slog.String("board", db.def.ID))
			d.boards = append(d.boards[:i], d.boards[i+1:]...)
			continue
		}
		if err == nil {
			m := r.IntN(len(db.names))
			err = d.submit(ctx, d.store, &b, board.Submission{Member: memberID(db.names[m]), Name: db.names[m], Score: db.score(r, m), Op: db.op, Team: db.teamOf(m),
				Segments: db.segmentsOf(m)})
		}
		if err != nil && ctx.Err() == nil {
			d.log.Warn("demo submission", slog.String("board", db.def.ID), slog.Any("error", err))
		}
	}
}

var errNotDemo = errors.New("not a demo board")

// own reads a demo board's definition and checks it is still the one the
// demo made: an admin may delete a demo board and make a real one under its
// id while the demo runs.
func (d *demo) own(ctx context.Context, id string) (board.Board, error) {
	b, err := d.store.Board(ctx, id)
	if errors.Is(err, board.ErrNotFound) || (err == nil && createdMark(b) != d.marks[id]) {
		return board.Board{}, fmt.Errorf("demo: board %q: %w", id, errNotDemo)
	}
	return b, err
}

// submit writes one demo score; the write records its own audit entry.
func (d *demo) submit(ctx context.Context, store *redisstore.Store, b *board.Board, sub board.Submission) error {
	_, err := store.Submit(ctx, b.ID, sub, board.Author{Actor: DemoActor, Reason: "demo data"})
	return err
}

// seed fills the previous periods (written through a store whose clock is
// set in the past) and the current ones, so every tab and the previous-period
// links have something to show.
func (d *demo) seed(ctx context.Context, b *board.Board, db *demoBoard, r *rand.Rand) error {
	now := d.store.Now()
	var times []time.Time
	for _, k := range b.Periods {
		if k.Calendar() {
			times = append(times, b.Current(k, now).Prev().Start.Add(13*time.Hour))
		}
	}
	times = append(times, now)
	for _, at := range times {
		clock := at
		s := redisstore.NewStore(d.rdb, redisstore.WithClock(func() time.Time { clock = clock.Add(37 * time.Second); return clock }))
		if at.Equal(now) {
			s = d.store
		}
		for round := range 4 {
			for m, name := range db.names {
				if r.IntN(4) == 0 && round > 0 {
					continue
				}
				sub := board.Submission{Member: memberID(name), Name: name, Score: db.score(r, m), Op: db.op, Team: db.teamOf(m), Segments: db.segmentsOf(m)}
				if err := d.submit(ctx, s, b, sub); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
