package hooks

import (
	"podium/board"
	"podium/redisstore"
)

// Every key of a board's webhooks is built here, on the board's hash tag,
// so the scripts that compare standings and queue deliveries touch one
// Redis Cluster slot, the board's own. Each is named after the board's
// hooks hash (board.HooksKey): deleting the board deletes the hash, the
// state, the counter, the queue and each registered hook's log in the same
// step (redisstore/lua/dropboard.lua), and a key added here must be added there.
//
//	lb:hooked                        set: ids of boards that have (or had) webhooks (untagged; the runner's list)
//	lb:{chess}:hooks                 hash: hook id -> registration (JSON: url, events, periods, top, secret, created, enabled)
//	lb:{chess}:hooks:state           hash: period kind -> the top N last seen ({"p": period, "n": N, "ids": [...]});
//	                                 "closed:<kind>" -> end (Unix ms) of the last closed period announced;
//	                                 "league:<kind>" -> end (Unix ms) of the last league period whose close was announced
//	lb:{chess}:hooks:seq             counter: the board's event ids
//	lb:{chess}:hooks:q               stream: one entry per delivery (hook, event, type, period, data), consumer group "podium"
//	lb:{chess}:hooks:log:<hook>      list: the hook's recent delivery attempts, newest first, capped
const hookedKey = "lb:hooked"

// HookedKey is the set of board ids the runner visits.
const HookedKey = hookedKey

func hooksKey(id string) string       { return redisstore.HooksKey(id) }
func stateKey(id string) string       { return redisstore.HooksKey(id) + ":state" }
func seqKey(id string) string         { return redisstore.HooksKey(id) + ":seq" }
func queueKey(id string) string       { return redisstore.HooksKey(id) + ":q" }
func logKey(id, hook string) string   { return redisstore.HooksKey(id) + ":log:" + hook }
func closedField(k board.Kind) string { return "closed:" + string(k) }
func leagueField(k board.Kind) string { return "league:" + string(k) }

// group is the consumer group every replica reads a board's queue in:
// Redis hands each entry to one consumer.
const group = redisstore.HooksGroup
