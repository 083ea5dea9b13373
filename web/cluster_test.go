package web

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/internal/redistest"
)

// testRedis is the Redis the web fixtures use: the package's private server,
// or a Cluster while TestAPIOnCluster runs.
var testRedis = func(t testing.TB) redis.UniversalClient { return srv.Client(t) }

// flushAll empties the test's Redis, every primary of a Cluster.
func flushAll(rdb redis.UniversalClient) error {
	ctx := context.Background()
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return n.FlushDB(ctx).Err() })
	}
	return rdb.FlushDB(ctx).Err()
}

// TestAPIOnCluster runs the API's test suite, the validation of every
// operation against the OpenAPI document included, on a real three-primary
// Redis Cluster.
func TestAPIOnCluster(t *testing.T) {
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	single := testRedis
	testRedis = func(t testing.TB) redis.UniversalClient { return cluster.Client(t) }
	defer func() { testRedis = single }()
	for name, test := range map[string]func(*testing.T){
		"OpenAPIResponses":            TestOpenAPIResponses,
		"APIKeysScopesAndErrors":      TestAPIKeysScopesAndErrors,
		"APISubmitBeforeAfterAndIdem": TestAPISubmitBeforeAfterAndIdempotency,
		"APIBatchAllOrNothing":        TestAPIBatchAllOrNothing,
		"APIBoardsAsCodeAndRemove":    TestAPIBoardsAsCodeAndRemove,
		"APIRateLimits":               TestAPIRateLimits,
		"APIExactNumbers":             TestAPIExactNumbers,
		"APIHonestSubmitErrors":       TestAPIHonestSubmitErrors,
		"APIRollingWindows":           TestAPIRollingWindows,
	} {
		t.Run(name, test)
	}
}
