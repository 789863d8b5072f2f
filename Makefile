# Magical Stories — the two commands a fresh Debian 12 machine with Swift needs:
#   make run    installs what is missing, builds, and starts storyreader on the bundled stories
#   make test   installs what is missing, builds, and runs every test
# Installing (see README, "Install"):
#   make release && sudo make install      PREFIX=/usr/local by default; DESTDIR for packaging
#   sudo make uninstall                    removes exactly what install put there
#   make deb                               storyreader_VERSION_ARCH.deb for apt (README, "Install")
SWIFT ?= swift
DEBUG_BIN = .build/debug/storyreader
RELEASE_BIN = .build/release/storyreader
# The binary `make install` copies: the release build unless told otherwise (tests pass the debug one).
BIN ?= $(RELEASE_BIN)
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: run test build setup setup-test setup-deb bench clean release install uninstall deb server bench-sync format lint

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

setup-deb:
	@scripts/setup.sh --deb

build: setup
	$(SWIFT) build

run: build
	@$(DEBUG_BIN)

release: setup
	$(SWIFT) build -c release --product storyreader
	@touch $(RELEASE_BIN)

# `sudo make install` after `make release` builds nothing (root's PATH often has no swift, and a
# build as root would leave root's files in .build): the binary is rebuilt only when a source is newer.
$(RELEASE_BIN): Package.swift $(shell find Sources -type f)
	$(MAKE) release

install: $(if $(filter $(RELEASE_BIN),$(BIN)),$(RELEASE_BIN))
	@scripts/install.sh install "$(BIN)" "$(PREFIX)" "$(DESTDIR)"

uninstall:
	@scripts/install.sh uninstall "$(PREFIX)" "$(DESTDIR)"

# The Debian package, for sites that install kiosks with apt (`apt install ./storyreader_….deb`):
# what `make install` installs, with PREFIX=/usr (scripts/deb.sh). The release build links the
# Swift runtime in (no Debian package provides it), in a build folder of its own so that it and
# `make release` do not rebuild each other. lintian must find no error.
DEB_BUILD = .build-deb
deb: setup-deb
	$(SWIFT) build -c release --product storyreader --static-swift-stdlib --disable-local-rpath --scratch-path $(DEB_BUILD)
	@deb=$$(scripts/deb.sh $(DEB_BUILD)/release/storyreader .) && \
	  echo "built $$deb ($$(du -h "$$deb" | cut -f1))" && \
	  lintian --fail-on error "$$deb"

# Tests include the sync server (the "Server" trait), so they build Hummingbird and postgres-nio.
test: setup-test
	$(SWIFT) build --build-tests --traits Server
	$(SWIFT) test --skip-build --traits Server
	scripts/browser-test.sh

# The benchmarks are a program of their own, storyreader-bench, built beside storyreader (which
# they run) and never installed; `storyreader bench …` runs it with the same words.
bench: setup-test
	$(SWIFT) build -c release
	.build/release/storyreader-bench library
	.build/release/storyreader-bench speech
	.build/release/storyreader-bench store
	.build/release/storyreader-bench repl
	.build/release/storyreader-bench completion

# The formatter the toolchain ships, with .swift-format's settings; CI runs `lint`.
format:
	$(SWIFT) format format --in-place --recursive Sources Tests

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests

clean:
	rm -rf .build

# The sync server (`storyreader serve`, docs/sites.md): the same program built with the "Server"
# trait, which adds Hummingbird and postgres-nio (minutes to build; `make run` never needs them).
server: setup
	$(SWIFT) build --traits Server
	@echo "built .build/debug/storyreader with 'serve' (release: swift build -c release --traits Server)"

# 20 simulated kiosks x 500 finished reads against one `serve` and a PostgreSQL started for it
# (`bench sync` starts a temporary PostgreSQL 15 itself when no --database is given).
bench-sync: setup-test
	$(SWIFT) build -c release --traits Server
	.build/release/storyreader-bench sync
	.build/release/storyreader-bench sync-server
