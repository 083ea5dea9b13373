package e2e

// The accessibility checks: axe-core, staged by scripts/playwright-setup.sh,
// run in the page, and its findings described for a test failure.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// axeSource is axe-core's script and version, from the driver folder that
// scripts/playwright-setup.sh stages (nothing is downloaded here).
func axeSource(t *testing.T) (src, version string) {
	t.Helper()
	dir := filepath.Join(driver, "axe-core") // staged by TestMain's driverDir
	js, err := os.ReadFile(filepath.Join(dir, "axe.min.js"))
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("axe-core is not in the driver folder %s: run scripts/playwright-setup.sh (make test and make e2e do), which installs it from npm", driver)
	}
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err != nil || json.Unmarshal(b, &pkg) != nil {
		t.Fatalf("axe-core in %s has no readable package.json: run scripts/playwright-setup.sh again", dir)
	}
	return string(js), pkg.Version
}

// violation is one failed axe rule on a page.
type violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	HelpURL string   `json:"helpUrl"`
	Targets []string `json:"targets"`
	Details []string `json:"details"`
}

// runAxe runs every default axe-core rule on the page (its frames too).
func runAxe(t *testing.T, page playwright.Page) []violation {
	t.Helper()
	out, err := page.Evaluate(`async () => {
		const r = await axe.run(document, { resultTypes: ["violations"] });
		return JSON.stringify(r.violations.map(v => ({
			id: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl,
			targets: v.nodes.map(n => n.target.join(" ")),
			details: v.nodes.map(n => (n.failureSummary || "").replace(/\s+/g, " ")),
		})));
	}`)
	if err != nil {
		t.Fatalf("%s: axe-core did not run: %v", page.URL(), err)
	}
	var vs []violation
	if err := json.Unmarshal([]byte(fmt.Sprint(out)), &vs); err != nil {
		t.Fatalf("%s: axe-core's answer: %v", page.URL(), err)
	}
	return vs
}

// describe lists violations as a person fixing them wants to read them.
func describe(vs []violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s (%s): %s\n    %s\n", v.ID, v.Impact, v.Help, v.HelpURL)
		for i, target := range v.Targets {
			if i == 8 {
				fmt.Fprintf(&b, "      ... and %d more\n", len(v.Targets)-i)
				break
			}
			fmt.Fprintf(&b, "      %s\n        %s\n", target, v.Details[i])
		}
	}
	return b.String()
}
