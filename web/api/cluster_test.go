package api_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"podium/internal/redistest"
	"podium/internal/webtest"
)

// TestAPIOnCluster runs the API's test suite, the validation of every
// operation against the OpenAPI document included, on a real three-primary
// Redis Cluster.
func TestAPIOnCluster(t *testing.T) {
	cluster, err := redistest.StartCluster(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	webtest.UseRedis(t, func(t testing.TB) redis.UniversalClient { return cluster.Client(t) })
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
		"MemberDataDownload":          TestMemberDataDownload,
		"EraseOverTheAPI":             TestEraseOverTheAPI,
		"APIRules":                    TestAPIRules,
		"APIScoreSessions":            TestAPIScoreSessions,
	} {
		t.Run(name, test)
	}
}
