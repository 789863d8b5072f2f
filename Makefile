# Magical Stories — the two commands a fresh Debian 12 machine with Swift needs:
#   make run    installs what is missing, builds, and starts storyreader on the bundled stories
#   make test   installs what is missing, builds, and runs every test
SWIFT ?= swift
BIN = .build/debug/storyreader

.PHONY: run test build setup setup-test bench clean

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

build: setup
	$(SWIFT) build

run: build
	@$(BIN)

test: setup-test
	$(SWIFT) build --build-tests
	$(SWIFT) test

bench: setup-test
	$(SWIFT) build -c release
	.build/release/storyreader bench library
	.build/release/storyreader bench speech
	.build/release/storyreader bench store
	.build/release/storyreader bench repl

clean:
	rm -rf .build
