package app

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// env is an environment of m's variables alone. The archive goes to a file
// of the test process's own (the default is ./data, in the source tree),
// and a stopped server does not drain (TestDrainBeforeShutdown does).
func env(m map[string]string) func(string) string {
	return func(k string) string {
		if k == "ARCHIVE_PATH" && m[k] == "" {
			return testArchive
		}
		if k == "DRAIN_PERIOD" && m[k] == "" {
			return "0s"
		}
		return m[k]
	}
}

var testArchive = filepath.Join(os.TempDir(), fmt.Sprintf("podium-app-test-%d", os.Getpid()), "archive.db")

func TestMain(m *testing.M) {
	code := m.Run()
	os.RemoveAll(filepath.Dir(testArchive))
	os.Exit(code)
}

// eventually waits for cond, up to 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
