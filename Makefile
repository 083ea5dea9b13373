# Podium: live leaderboards on Redis. `make test` runs every test; `make bench`
# runs the benchmarks (never part of `make test`).
GO        ?= go
PKGS      := ./...
BENCHTIME ?= 2000x

.PHONY: test unit fuzz bench lint fmt vet deps-test

test: deps-test vet
	$(GO) test -race -count=1 $(PKGS)

unit: deps-test
	$(GO) test -race -count=1 -short $(PKGS)

deps-test:
	@scripts/need-redis.sh

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }

fmt:
	gofmt -w .

lint: vet

# Short fuzzing sessions of every parser of outside input.
fuzz: deps-test
	$(GO) test ./board -run '^$$' -fuzz FuzzParsePeriod -fuzztime 30s
	$(GO) test ./board -run '^$$' -fuzz FuzzCheckScore -fuzztime 30s

# Benchmarks on a 1,000,000-member board next to redis-benchmark on the same machine.
bench: deps-test
	scripts/bench.sh
