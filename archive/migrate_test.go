package archive

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestMigrationsOnce: opening an archive again applies nothing twice.
func TestMigrationsOnce(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		target := filepath.Join(t.TempDir(), "again.db")
		if db.postgres {
			target = psrv.Database(t)
		}
		for range 2 {
			again, err := Open(context.Background(), target)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := again.sql.QueryRow(`SELECT COUNT(*) FROM archive_schema`).Scan(&n); err != nil || n != len(migrations)-1 {
				t.Fatalf("versions %d %v", n, err)
			}
			again.Close()
		}
	})
}

// TestMigrationsTogether: replicas opening a new archive at once all start.
func TestMigrationsTogether(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, db *DB) {
		target := filepath.Join(t.TempDir(), "together.db")
		if db.postgres {
			target = psrv.Database(t)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x, err := Open(context.Background(), target)
				if err != nil {
					t.Error(err)
					return
				}
				x.Close()
			}()
		}
		wg.Wait()
	})
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://u:secret@db:5432/p":           "postgres://u:%2A%2A%2A@db:5432/p",
		"postgres://db/p?password=secret&x=1":     "postgres://db/p?password=%2A%2A%2A&x=1",
		"postgresql://u@db/p?sslmode=require":     "postgresql://u@db/p?sslmode=require",
		"postgres://u:s%20cret@db/p?PassWord=abc": "postgres://u:%2A%2A%2A@db/p?PassWord=%2A%2A%2A",
	} {
		if got := redactURL(in); got != want || strings.Contains(got, "secret") {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
