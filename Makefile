# petspotd — the two everyday commands are `make run` and `make test`.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: run test build release deps clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Starts the daemon on the checkout's configuration: socket run/petspotd.sock, database var/.
run: build
	$(SWIFT) run petspotd --config config/petspotd.json

# The whole test suite: unit tests of every module, then the daemon over a real socket.
test: build
	$(SWIFT) test --no-parallel

clean:
	rm -rf .build run var
