# Podium: live leaderboards on Redis.
#   make run    the dashboard on the embedded store with demo boards (http://localhost:8080)
#   make test   every test, browser tests included; installs what they need
GO      ?= go
PKGS    := ./...
ADDR    ?= :8080
RUNARGS ?= --demo

.PHONY: lint-openapi staticcheck run build test unit e2e e2e-setup deps-test vet generate check-generated check-tidy fmt lint fuzz bench bench-redis bench-api bench-live bench-archive

run: build
	./bin/web --addr $(ADDR) $(RUNARGS)

build: generate
	$(GO) build -o bin/web ./cmd/web

# Every test, with the race detector, against private redis-server processes
# and a real Chromium; browser test failures leave screenshots in e2e/screenshots/.
# Four packages at a time, not one per core: most of their time is spent
# waiting on their own Redis, PostgreSQL and Chromium. The slowest start
# first (go test runs packages in the order named), so the run lasts about
# as long as the browser tests: 197 s warm on two cores, against 302 s in
# the default order and 6-7 minutes two at a time.
SLOWEST := ./e2e ./archive ./redisstore ./web
test: deps-test e2e-setup vet staticcheck check-generated check-tidy
	PLAYWRIGHT_DRIVER_PATH="$$(scripts/playwright-setup.sh)" $(GO) test -race -count=1 -p 4 $(if $(filter ./...,$(PKGS)),$(SLOWEST)) $(PKGS)

# Quick: no browser, no 100,000-member tie test.
unit: deps-test
	$(GO) test -race -count=1 -short $$($(GO) list ./... | grep -v /e2e)

e2e: deps-test e2e-setup
	PLAYWRIGHT_DRIVER_PATH="$$(scripts/playwright-setup.sh)" $(GO) test -count=1 -v ./e2e

deps-test:
	@scripts/need-redis.sh
	@scripts/need-postgres.sh

e2e-setup:
	@scripts/playwright-setup.sh >/dev/null

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }

# templ output and the Go API client generated from the API document (by the
# oapi-codegen pinned in go.mod) are committed; CI fails when they are stale.
GENERATED := web/templates/*_templ.go web/api/client/client.gen.go
generate:
	@$(GO) tool templ generate -log-level error
	@$(GO) tool oapi-codegen -generate types,client -package client -o web/api/client/client.gen.go web/api/openapi.json

check-generated:
	@before="$$(cat $(GENERATED) | sha256sum)"; \
	$(MAKE) --no-print-directory generate >/dev/null 2>&1 || { echo "make generate failed: run it to see why"; exit 1; }; \
	after="$$(cat $(GENERATED) | sha256sum)"; \
	[ "$$before" = "$$after" ] || { echo "generated files were stale (now regenerated): commit $(GENERATED)"; exit 1; }

# go.mod and go.sum must be what `go mod tidy` makes of them.
check-tidy:
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy (go mod tidy -diff below): run go mod tidy and commit"; $(GO) mod tidy -diff; exit 1; }

# staticcheck at the version pinned in go.mod (a tool line): no findings.
staticcheck:
	$(GO) tool staticcheck ./...

fmt:
	gofmt -w .

lint: vet staticcheck lint-openapi

# The API document against redocly's recommended rules (0 errors; the one
# warning left asks for a licence). npm installs the CLI once, into .cache.
REDOCLY_VERSION ?= 2.77.0
lint-openapi:
	@[ -x .cache/redocly/node_modules/.bin/redocly ] || npm install --prefix .cache/redocly --no-audit --no-fund --silent @redocly/cli@$(REDOCLY_VERSION)
	.cache/redocly/node_modules/.bin/redocly lint web/api/openapi.json

# Short fuzzing sessions of every parser of outside input.
fuzz: deps-test
	$(GO) test ./board -run '^$$' -fuzz FuzzParsePeriod -fuzztime 30s
	$(GO) test ./board -run '^$$' -fuzz FuzzParseScore -fuzztime 30s
	$(GO) test ./board -run '^$$' -fuzz FuzzSchedule -fuzztime 30s
	$(GO) test ./web/api -run '^$$' -fuzz FuzzDecodeScores -fuzztime 30s
	$(GO) test ./web/api -run '^$$' -fuzz 'FuzzCursor$$' -fuzztime 30s
	$(GO) test ./web/api -run '^$$' -fuzz FuzzCursorContents -fuzztime 30s
	$(GO) test ./web/admin -run '^$$' -fuzz FuzzAdminForms -fuzztime 30s
	$(GO) test ./web/admin -run '^$$' -fuzz FuzzContestTime -fuzztime 30s

# Benchmarks on a 1,000,000-member board next to redis-benchmark on this machine.
bench: deps-test
	scripts/bench.sh

# Redis' own µs per operation (reads and writes) on a 1,000,000-member
# board, next to the bare commands and redis-benchmark ZINCRBY -c 50.
bench-redis: deps-test
	scripts/bench-redis.sh

# The API's write path under load (loopback only, stops by itself): single
# POSTs and batches against the real server, beside redis-benchmark ZINCRBY.
bench-api: deps-test
	scripts/bench-api.sh

# Every read of an archived 1,000,000-member period, on SQLite and a
# private PostgreSQL: the time each takes.
bench-archive: deps-test
	ARCHIVE_PERF=1 $(GO) test ./archive -run TestArchivedReadsAtAMillion -count=1 -v | grep -E 'perf_test|PASS|FAIL|ok'

# Live updates under load (loopback only, stops by itself): 2,000 WebSocket
# clients on one board while writes run; prints latency and memory per client.
bench-live: deps-test
	$(GO) build -o bin/liveload ./cmd/liveload
	./bin/liveload -preset $${PRESET:-2k} -clients $${CLIENTS:-0} -rate $${RATE:-0} -duration $${DURATION:-20s}
