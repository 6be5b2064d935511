# petspotd — the two everyday commands are `make run` and `make test`;
# `make install` puts a hardened, socket-activated system service in place.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
BINDIR := $(PREFIX)/bin
SBINDIR := $(PREFIX)/sbin
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/petspotd
CONFDIR := $(SYSCONFDIR)/petspotd
RELAY_CONFDIR := $(SYSCONFDIR)/petspot-relay
# Where the built programs are; set it to install binaries built elsewhere.
SWIFT_BIN_DIR ?=

INSTALL ?= install

.PHONY: run test test-faults build release deps install uninstall install-relay uninstall-relay clean static deb test-package test-vm footprint fuzz fuzz-brief test-asan test-tsan \
	poster poster-deps release-poster static-poster install-poster uninstall-poster

deps:
	@scripts/install-deps

# petspot-poster is a package of its own in Poster/ (Poster/Package.swift says why): it links
# cairo, pango, gdk-pixbuf and libqrencode, which petspotd and petspot never need, so `make build`,
# `make run` and a plain `swift build` work without them. `make poster` installs them and builds
# it; `make test` tests both packages.
POSTER := --package-path Poster
poster-deps: deps
	@scripts/install-deps poster

poster: poster-deps
	$(SWIFT) build $(POSTER)

release-poster: poster-deps
	$(SWIFT) build $(POSTER) -c release

# Self-contained programs: the Swift runtime linked in (no RUNPATH into /opt/swift), stripped,
# in $(STATIC_BIN); ldd may list only libraries of Debian packages.
STATIC_SCRATCH ?= .build-static
STATIC_BIN := $(STATIC_SCRATCH)/bin
# --disable-local-rpath: no RUNPATH ($$ORIGIN) at all, the programs need no library beside them;
# -z now: relocations resolved at start and then read-only (Debian's bindnow hardening);
# --no-export-dynamic: no table of every Swift symbol for dlopen'ed code that never comes
# (SwiftPM exports them for tests of executables), 1.3 MB less per program.
STATIC_LINK := --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now -Xlinker --no-export-dynamic
STATIC_FLAGS := -c release $(STATIC_LINK) --scratch-path $(STATIC_SCRATCH)
# The relay waits on the network and PostgreSQL, never on its own code: it is built for size
# (-Osize, 0.8 MB less; link-time optimisation, 0.77 MB less again: the protocol module's
# contract, which the relay links whole for its conformance records, is mostly dropped), in a
# scratch folder of its own so that petspotd keeps -O.
STATIC_RELAY_FLAGS := -c release $(STATIC_LINK) -Xswiftc -Osize --experimental-lto-mode=full --scratch-path $(STATIC_SCRATCH)-relay
static: deps
	$(SWIFT) build $(STATIC_FLAGS) --product petspotd
	$(SWIFT) build $(STATIC_FLAGS) --product petspot
	$(SWIFT) build $(STATIC_RELAY_FLAGS) --product petspot-relay
	@bin="$$($(SWIFT) build $(STATIC_FLAGS) --show-bin-path)"; relay_bin="$$($(SWIFT) build $(STATIC_RELAY_FLAGS) --show-bin-path)"; set -e; \
	mkdir -p $(STATIC_BIN); \
	for p in petspotd petspot; do strip --strip-all -o $(STATIC_BIN)/$$p.tmp "$$bin/$$p" && mv $(STATIC_BIN)/$$p.tmp $(STATIC_BIN)/$$p; done; \
	strip --strip-all -o $(STATIC_BIN)/petspot-relay.tmp "$$relay_bin/petspot-relay" && mv $(STATIC_BIN)/petspot-relay.tmp $(STATIC_BIN)/petspot-relay
	scripts/check-self-contained $(STATIC_BIN)/petspotd $(STATIC_BIN)/petspot $(STATIC_BIN)/petspot-relay

# petspot-poster the same way, from its own package into its own scratch folder; cairo, pango,
# gdk-pixbuf and libqrencode stay Debian's shared libraries (dh_shlibdeps makes them Depends).
# pangocairo's pkg-config file links libharfbuzz too, which the program never calls: dpkg-shlibdeps
# says so, and the Depends on libharfbuzz0b costs nothing (libpango-1.0-0 depends on it anyway).
STATIC_POSTER_FLAGS := -c release $(STATIC_LINK) --scratch-path $(STATIC_SCRATCH)-poster $(POSTER)
static-poster: poster-deps
	$(SWIFT) build $(STATIC_POSTER_FLAGS) --product petspot-poster
	@bin="$$($(SWIFT) build $(STATIC_POSTER_FLAGS) --show-bin-path)"; set -e; mkdir -p $(STATIC_BIN); \
	strip --strip-all -o $(STATIC_BIN)/petspot-poster.tmp "$$bin/petspot-poster" && mv $(STATIC_BIN)/petspot-poster.tmp $(STATIC_BIN)/petspot-poster
	scripts/check-self-contained $(STATIC_BIN)/petspot-poster

# The Debian package, built by debhelper from debian/: dist/petspotd_<version>_<arch>.deb, then
# checked by lintian (errors fail the build; the warnings kept are explained in debian/).
DIST ?= dist
DEB_VERSION = $(shell dpkg-parsechangelog -S Version)
DEB_ARCH = $(shell dpkg --print-architecture)
DEB = $(DIST)/petspotd_$(DEB_VERSION)_$(DEB_ARCH).deb
RELAY_DEB = $(DIST)/petspot-relay_$(DEB_VERSION)_$(DEB_ARCH).deb
POSTER_DEB = $(DIST)/petspot-poster_$(DEB_VERSION)_$(DEB_ARCH).deb
deb:
	@scripts/install-deps package poster
	mkdir -p $(DIST)
	PETSPOT_DEB_DIR=$(CURDIR)/$(DIST) dpkg-buildpackage -b --no-sign \
		--buildinfo-file=$(DIST)/petspotd_$(DEB_VERSION)_$(DEB_ARCH).buildinfo --buildinfo-option=-u$(DIST) \
		--changes-file=$(DIST)/petspotd_$(DEB_VERSION)_$(DEB_ARCH).changes --changes-option=-u$(DIST)
	lintian --fail-on error $(DEB) $(RELAY_DEB) $(POSTER_DEB)
	@# What debhelper writes (debian/petspotd/, debian/petspot-relay/, …) is ignored by git, never tracked.
	@if git rev-parse --git-dir >/dev/null 2>&1; then \
		left=$$(git ls-files --others --exclude-standard -- debian; git ls-files -- debian/petspotd debian/petspot-relay debian/petspot-poster); \
		if [ -n "$$left" ]; then echo "debhelper's output is not ignored by git:"; echo "$$left"; exit 1; fi; \
	fi
	@echo "built $(DEB) $(RELAY_DEB) $(POSTER_DEB)"

# The package on a clean Debian 12 without Swift: apt installs it and its dependencies in a
# debootstrapped root, where the daemon runs and petspot files a whole report.
test-package: deb
	@scripts/install-deps system
	scripts/test-package $(DEB) $(RELAY_DEB)

# The package under a real systemd: a Debian 12 virtual machine (software emulation) installs,
# uses, upgrades and purges it; results are read back from the machine's own disk.
test-vm: deb
	@scripts/install-deps system
	scripts/test-vm $(DEB) $(RELAY_DEB)

# Idle RSS of the self-contained daemon and the installed size of the package.
footprint: deb
	Benchmarks/run-footprint.sh $(DEB)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Starts the daemon on the checkout's configuration: socket run/petspotd.sock, database var/.
# Builds only the daemon (swift run builds what it starts); `make build` builds every program but
# petspot-poster (`make poster`).
run: deps
	@echo "petspot and petspot-relay (make build; .build/debug/) find this daemon once you run: export PETSPOT_SOCKET=$(CURDIR)/run/petspotd.sock"
	$(SWIFT) run petspotd --config config/petspotd.json

# The whole test suite: unit tests of every module, then the daemon over a real socket; then
# petspot-poster's package, whose tests read real posters back (poppler-utils, zbarimg).
test: build poster
	$(SWIFT) test --no-parallel
	$(SWIFT) test --no-parallel $(POSTER)

# Only the fault-injection tests (docs/RELIABILITY.md; also part of make test), with more
# SIGKILL rounds if asked (FAULT_ROUNDS) and a seed to replay a failure (FAULT_SEED).
FAULT_ROUNDS ?= 20
FAULT_TESTS := DiskFullTests|ReadOnlyDatabaseTests|SigkillRoundsTests|LyingGpsdTests|DatabaseFileLostTests|DatabaseDamageTests|DurabilityTests|RelayAttackTests|RelayChangesTests|ClientDeadlineTests
test-faults: build
	PETSPOT_FAULT_ROUNDS=$(FAULT_ROUNDS) $(if $(FAULT_SEED),PETSPOT_FAULT_SEED=$(FAULT_SEED)) \
		$(SWIFT) test --no-parallel --filter '$(FAULT_TESTS)'

# The integration tests with the test runner, petspotd and petspot built with AddressSanitizer or
# ThreadSanitizer (own scratch folders .build-asan, .build-tsan); a report from any of them fails
# the run and is printed (docs/RELIABILITY.md, "Sanitizers").
test-asan: deps
	scripts/sanitize address

test-tsan: deps
	scripts/sanitize thread

# The libFuzzer targets of Fuzz/ (docs/RELIABILITY.md), each for FUZZ_SECONDS (FUZZ_TARGETS: some
# of them); fails on a crash, a broken invariant, a leak or a hang, keeping the input in
# .fuzz/<target>/crashes/.
FUZZ_SECONDS ?= 600
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz $(FUZZ_TARGETS)

# What CI runs: every target for 30 s (the long runs are in docs/RELIABILITY.md).
fuzz-brief: deps
	FUZZ_SECONDS=30 scripts/fuzz

# Installs programs, units, configuration (never over an edited one), man pages, completions
# and the sysusers.d entry; on a live system (no DESTDIR) also creates the user and group.
install: $(if $(SWIFT_BIN_DIR),,release)
	@bin="$(if $(SWIFT_BIN_DIR),$(SWIFT_BIN_DIR),$$($(SWIFT) build -c release --show-bin-path))"; \
	set -e; \
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(SBINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" \
		"$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man8" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(CONFDIR)" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"; \
	$(INSTALL) -m 0755 "$$bin/petspotd" "$(DESTDIR)$(SBINDIR)/petspotd"; \
	$(INSTALL) -m 0755 "$$bin/petspot" "$(DESTDIR)$(BINDIR)/petspot"; \
	sed 's|/usr/local/sbin/petspotd|$(SBINDIR)/petspotd|g; s|/etc/petspotd/|$(CONFDIR)/|g' systemd/petspotd.service > "$(DESTDIR)$(UNITDIR)/petspotd.service"; \
	chmod 0644 "$(DESTDIR)$(UNITDIR)/petspotd.service"; \
	$(INSTALL) -m 0644 systemd/petspotd.socket "$(DESTDIR)$(UNITDIR)/petspotd.socket"; \
	$(INSTALL) -m 0644 systemd/petspotd.sysusers "$(DESTDIR)$(SYSUSERSDIR)/petspotd.conf"; \
	$(INSTALL) -m 0644 docs/man/petspot.1 "$(DESTDIR)$(MANDIR)/man1/petspot.1"; \
	$(INSTALL) -m 0644 docs/man/petspotd.8 "$(DESTDIR)$(MANDIR)/man8/petspotd.8"; \
	$(INSTALL) -m 0644 README.md docs/PROTOCOL.md docs/OPERATIONS.md docs/PERFORMANCE.md "$(DESTDIR)$(DOCDIR)/"; \
	"$$bin/petspot" --generate-completion-script bash | sed "1{/^#!/d}" > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/petspot"; \
	"$$bin/petspot" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_petspot"; \
	"$$bin/petspot" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/petspot.fish"; \
	for pair in config/petspotd.installed.json:petspotd.json config/species.json:species.json; do \
		src=$${pair%%:*}; dst="$(DESTDIR)$(CONFDIR)/$${pair##*:}"; \
		if [ -e "$$dst" ] && ! cmp -s "$$src" "$$dst"; then \
			$(INSTALL) -m 0644 "$$src" "$$dst.new"; echo "kept your $$dst; the new default is $$dst.new"; \
		else \
			$(INSTALL) -m 0644 "$$src" "$$dst"; \
		fi; \
	done
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemd-sysusers "$(SYSUSERSDIR)/petspotd.conf" && systemctl daemon-reload && \
		echo "installed; start with: systemctl enable --now petspotd.socket"; \
	fi

# The fleet relay (its own Debian package): program, unit, sysusers.d entry, man page and
# configuration (never over an edited one), mode 0640: it may hold the database's password, so
# only root and, on a live system, the relay's group read it.
install-relay: $(if $(SWIFT_BIN_DIR),,release)
	@bin="$(if $(SWIFT_BIN_DIR),$(SWIFT_BIN_DIR),$$($(SWIFT) build -c release --show-bin-path))"; \
	set -e; \
	$(INSTALL) -d "$(DESTDIR)$(SBINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" "$(DESTDIR)$(MANDIR)/man8" \
		"$(DESTDIR)$(RELAY_CONFDIR)"; \
	$(INSTALL) -m 0755 "$$bin/petspot-relay" "$(DESTDIR)$(SBINDIR)/petspot-relay"; \
	sed 's|/usr/local/sbin/petspot-relay|$(SBINDIR)/petspot-relay|g; s|/etc/petspot-relay/|$(RELAY_CONFDIR)/|g' systemd/petspot-relay.service > "$(DESTDIR)$(UNITDIR)/petspot-relay.service"; \
	chmod 0644 "$(DESTDIR)$(UNITDIR)/petspot-relay.service"; \
	$(INSTALL) -m 0644 systemd/petspot-relay.sysusers "$(DESTDIR)$(SYSUSERSDIR)/petspot-relay.conf"; \
	$(INSTALL) -m 0644 docs/man/petspot-relay.8 "$(DESTDIR)$(MANDIR)/man8/petspot-relay.8"; \
	dst="$(DESTDIR)$(RELAY_CONFDIR)/petspot-relay.json"; \
	if [ -e "$$dst" ] && ! cmp -s config/petspot-relay.installed.json "$$dst"; then \
		$(INSTALL) -m 0640 config/petspot-relay.installed.json "$$dst.new"; echo "kept your $$dst; the new default is $$dst.new"; \
	else \
		$(INSTALL) -m 0640 config/petspot-relay.installed.json "$$dst"; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemd-sysusers "$(SYSUSERSDIR)/petspot-relay.conf" && \
		chgrp petspot-relay "$(RELAY_CONFDIR)/petspot-relay.json" $$(ls "$(RELAY_CONFDIR)/petspot-relay.json.new" 2>/dev/null) && \
		systemctl daemon-reload && \
		echo "installed; set postgres in $(RELAY_CONFDIR)/petspot-relay.json, then: systemctl enable --now petspot-relay"; \
	fi

# The poster program (its own Debian package): the program and its man page.
install-poster: $(if $(SWIFT_BIN_DIR),,release-poster)
	@bin="$(if $(SWIFT_BIN_DIR),$(SWIFT_BIN_DIR),$$($(SWIFT) build $(POSTER) -c release --show-bin-path))"; \
	set -e; \
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1"; \
	$(INSTALL) -m 0755 "$$bin/petspot-poster" "$(DESTDIR)$(BINDIR)/petspot-poster"; \
	$(INSTALL) -m 0644 docs/man/petspot-poster.1 "$(DESTDIR)$(MANDIR)/man1/petspot-poster.1"

uninstall-poster:
	rm -f "$(DESTDIR)$(BINDIR)/petspot-poster" "$(DESTDIR)$(MANDIR)/man1/petspot-poster.1"

uninstall-relay:
	rm -f "$(DESTDIR)$(SBINDIR)/petspot-relay" "$(DESTDIR)$(UNITDIR)/petspot-relay.service" \
		"$(DESTDIR)$(SYSUSERSDIR)/petspot-relay.conf" "$(DESTDIR)$(MANDIR)/man8/petspot-relay.8"
	@echo "kept $(DESTDIR)$(RELAY_CONFDIR) and /var/lib/petspot-relay; remove them by hand to purge"

# Removes what install put in place, except the configuration and the reports database.
uninstall:
	rm -f "$(DESTDIR)$(SBINDIR)/petspotd" "$(DESTDIR)$(BINDIR)/petspot" \
		"$(DESTDIR)$(UNITDIR)/petspotd.service" "$(DESTDIR)$(UNITDIR)/petspotd.socket" \
		"$(DESTDIR)$(SYSUSERSDIR)/petspotd.conf" \
		"$(DESTDIR)$(MANDIR)/man1/petspot.1" "$(DESTDIR)$(MANDIR)/man8/petspotd.8" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/petspot" \
		"$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_petspot" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/petspot.fish"
	rm -rf "$(DESTDIR)$(DOCDIR)"
	@echo "kept $(DESTDIR)$(CONFDIR) and /var/lib/petspotd; remove them by hand to purge"

clean:
	rm -rf .build Poster/.build run var $(DIST)
