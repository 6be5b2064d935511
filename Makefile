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
# Where the built programs are; set it to install binaries built elsewhere.
SWIFT_BIN_DIR ?=

INSTALL ?= install

.PHONY: run test build release deps install uninstall clean

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
	"$$bin/petspot" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/petspot"; \
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
	rm -rf .build run var
