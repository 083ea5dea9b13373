package pages_test

import (
	"net/http"
	"testing"

	"podium/app"
	"podium/board"
	"podium/internal/webtest"
)

// TestLiveRefusesOriginNull: "*" lets any site's widget connect, but not a
// page without an origin, unless null is listed.
func TestLiveRefusesOriginNull(t *testing.T) {
	f := webtest.New(t)
	f.Board(board.Board{ID: "chess", Title: "Chess"}, map[string]float64{"ann": 1})
	for _, tc := range []struct {
		origins []string
		want    int
	}{{[]string{"*"}, 403}, {[]string{"*", "null"}, 101}} {
		h := webtest.New(t, webtest.KeepData(), webtest.Live(), webtest.Configure(func(c *app.Config) { c.EmbedOrigins = tc.origins })).HTTP
		req, _ := http.NewRequest("GET", h.URL+"/live?board=chess", nil)
		for k, v := range map[string]string{"Origin": "null", "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="} {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h.Close()
		if res.StatusCode != tc.want {
			t.Errorf("origins %v, Origin null: %d, want %d", tc.origins, res.StatusCode, tc.want)
		}
	}
}
