# Two commands matter: `make run` and `make test`. Both install what is missing.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
export CGO_ENABLED := 1
GO ?= go
BIN := bin/gatehouse
GOFLAGS_TEST ?= -count=1 -timeout 30m

.PHONY: run build test test-fast bench deps deps-test clean

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

build: deps
	$(GO) build -o $(BIN) .

run: build
	./$(BIN) $(ARGS)

# Fast path: unit tests only.
test-fast:
	$(GO) test ./...

# Everything: unit, integration (real binary, real sandboxes, real SQLite).
test: deps-test
	$(GO) vet ./...
	$(GO) test $(GOFLAGS_TEST) -tags integration ./...

bench: deps-test
	$(GO) test -run '^$$' -bench . -benchtime 2s ./...

clean:
	rm -rf bin test-results
