package pages_test

import (
	"testing"

	"podium/internal/webtest"
)

// The pages' tests drive the whole server (webtest: built by app.New) on a
// private Redis.
func TestMain(m *testing.M) { webtest.Main(m) }
