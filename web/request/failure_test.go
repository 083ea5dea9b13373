package request

import (
	"fmt"
	"testing"
)

// redisReply is a Redis error reply, as go-redis returns one.
type redisReply string

func (e redisReply) Error() string { return string(e) }
func (redisReply) RedisError()     {}

// TestStoreUnavailableKinds: replies that mean "Redis cannot serve yet" are
// 503s too; replies that mean the request or the code is wrong are not.
func TestStoreUnavailableKinds(t *testing.T) {
	for reply, want := range map[string]bool{
		"LOADING Redis is loading the dataset in memory":  true,
		"MASTERDOWN Link with MASTER is down":             true,
		"CLUSTERDOWN The cluster is down":                 true,
		"TRYAGAIN Multiple keys request during rehashing": true,
		"BUSY Redis is busy running a script":             true,
		"ERR wrong number of arguments":                   false,
		"WRONGTYPE Operation against a key":               false,
		"NOSCRIPT No matching script":                     false,
	} {
		if got := StoreUnavailable(fmt.Errorf("board: read: %w", redisReply(reply))); got != want {
			t.Errorf("%q: unavailable %v, want %v", reply, got, want)
		}
	}
}
