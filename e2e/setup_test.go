package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlaywrightSetupOnEmptyModuleCache runs the set-up script as a fresh
// machine would, with an empty Go module cache: it must download the
// playwright-go module itself before reading the driver version it pins
// (reading the cache first printed nothing, and `make test` failed at once).
// It stays serial, so it runs before the parallel tests start: the script
// re-links the driver folder (ln -sfn) that they read axe-core from.
func TestPlaywrightSetupOnEmptyModuleCache(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads a module through the Go proxy")
	}
	cache := t.TempDir()
	cmd := exec.Command("../scripts/playwright-setup.sh")
	cmd.Env = append(os.Environ(), "GOMODCACHE="+cache, "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -modcacherw"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("playwright-setup.sh with an empty module cache: %v\n%s", err, stderr.String())
	}
	driver := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(driver, "package", "package.json")); err != nil {
		t.Fatalf("driver folder %q has no playwright-core: %v", driver, err)
	}
	if _, err := os.Stat(filepath.Join(driver, "node")); err != nil {
		t.Fatalf("driver folder %q has no node: %v", driver, err)
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "github.com", "playwright-community", "playwright-go@*", "run.go"))
	if len(matches) != 1 {
		t.Fatalf("the script did not fetch playwright-go into the empty cache: %v", matches)
	}
}
