package api_test

import (
	"testing"

	"podium/internal/webtest"
)

// The API's tests drive the whole server (webtest: built by app.New) on a
// private Redis.
func TestMain(m *testing.M) { webtest.Main(m) }
