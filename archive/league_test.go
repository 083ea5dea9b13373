package archive

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"podium/board"
	"podium/redisstore"
)

// lockedBuffer is a log both replicas write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// leagueModel is a plain model of a weekly league of tiers 0..tiers-1,
// cohorts of size, promote 1 and relegate 1, for members who all play
// every week in the order given, with distinct scores.
type leagueModel struct {
	tiers, size int
	tier        map[string]int
}

// week plays one week: scores by member, members in the order they first
// score. It returns each member's "<tier>/<cohort>#<rank>".
func (m *leagueModel) week(order []string, score map[string]int) map[string]string {
	cohorts := map[int][][]string{}
	for _, id := range order {
		t := m.tier[id]
		cs := cohorts[t]
		if len(cs) == 0 || len(cs[len(cs)-1]) == m.size {
			cs = append(cs, nil)
		}
		cs[len(cs)-1] = append(cs[len(cs)-1], id)
		cohorts[t] = cs
	}
	out := map[string]string{}
	next := maps.Clone(m.tier)
	for t, cs := range cohorts {
		for c, members := range cs {
			ranked := slices.Clone(members)
			slices.SortFunc(ranked, func(a, b string) int { return score[b] - score[a] })
			for i, id := range ranked {
				out[id] = fmt.Sprintf("%d/%d#%d", t, c+1, i+1)
				switch {
				case i == 0 && t < m.tiers-1:
					next[id] = t + 1
				case i == len(ranked)-1 && i > 0 && t > 0:
					next[id] = t - 1
				}
			}
		}
	}
	m.tier = next
	return out
}

// TestLeagueSeason: three weeks of a league of 12 members in cohorts of 5,
// closed by two replicas archiving at once: after each week every member's
// tier is the model's, each week closes once, and its results are the
// model's.
func TestLeagueSeason(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		rdb := newRedis(t)
		clk := &clock{}
		clk.Set(time.Date(2026, 11, 16, 9, 0, 0, 0, time.UTC)) // Monday of week 47
		var log lockedBuffer
		replica := func() *Archiver {
			s := redisstore.NewStore(rdb, redisstore.WithClock(clk.Now), redisstore.WithDefinitionTTL(0), redisstore.WithPast(db.Past()))
			return &Archiver{Store: s, DB: db, Grace: time.Hour, Log: slog.New(slog.NewTextHandler(&log, nil))}
		}
		a1, a2 := replica(), replica()
		b, err := a1.Store.CreateBoard(ctx, board.Board{ID: "season", Title: "Season", Periods: []board.Kind{board.Weekly, board.AllTime},
			League: &board.League{Kind: board.Weekly, Tiers: []string{"Bronze", "Silver", "Gold"}, CohortSize: 5, Promote: 1, Relegate: 1}})
		if err != nil {
			t.Fatal(err)
		}
		model := &leagueModel{tiers: 3, size: 5, tier: map[string]int{}}
		var order []string
		for i := range 12 {
			order = append(order, fmt.Sprintf("m%02d", i))
		}
		for w := range 3 {
			wk := b.Current(board.Weekly, clk.Now())
			score := map[string]int{}
			for i, id := range order {
				score[id] = (i*7 + w*5) % 12 * 10 // distinct each week
				if _, err := a1.Store.Submit(ctx, b.ID, board.Submission{Member: id, Score: float64(score[id]), Op: board.Set}, board.Author{Actor: "game"}); err != nil {
					t.Fatal(err)
				}
			}
			want := model.week(order, score)
			clk.Set(wk.End.Add(time.Minute))
			var wg sync.WaitGroup
			for _, a := range []*Archiver{a1, a2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := a.Due(ctx); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			for _, id := range order {
				if got, _ := a1.Store.TierOf(ctx, &b, id); got != model.tier[id] {
					t.Fatalf("week %d: %s holds tier %d, want %d", w, id, got, model.tier[id])
				}
			}
			rs, ok, err := a1.Store.LeagueResults(ctx, &b, wk)
			if err != nil || !ok || len(rs) != len(order) {
				t.Fatalf("week %d: results %v %v %v", w, rs, ok, err)
			}
			for _, r := range rs {
				if got := fmt.Sprintf("%d/%d#%d", r.Tier, r.Cohort, r.Rank); got != want[r.Member] || r.Next != model.tier[r.Member] {
					t.Fatalf("week %d: %s %s next %d, want %s next %d", w, r.Member, got, r.Next, want[r.Member], model.tier[r.Member])
				}
			}
			if n := log.count("league closed"); n != w+1 {
				t.Fatalf("after week %d: %d closes logged", w, n)
			}
			clk.Set(wk.End.Add(24 * time.Hour))
		}
	})
}
