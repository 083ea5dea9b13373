package web_test

import (
	"testing"

	"podium/internal/webtest"
)

// The assembly's tests drive the whole server (webtest: built by app.New),
// or web.New with a fake part, on a private Redis.
func TestMain(m *testing.M) { webtest.Main(m) }
