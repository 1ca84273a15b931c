# Darkroom: build, install under systemd, check the units. See docs/systemd.md.
#
#   make                      release build of the darkroom binary (swift build -c release)
#   sudo make install         binary, units, sysusers.d, tmpfiles.d, logrotate, config example, man page
#   make install DESTDIR=/tmp/stage PREFIX=/usr    staged install, e.g. for a package
#   sudo make uninstall       removes what install installed (not /etc/darkroom/darkroom.toml,
#                             not /var/lib/darkroom, not the darkroom user)
#   make check-units          systemd-analyze verify + security on the units
#   make units                regenerates the committed systemd/*.service from systemd/*.service.in
#
# The default PREFIX=/usr/local is a local administrator's install: systemd reads units
# from /usr/local/lib/systemd/system and sysusers.d/tmpfiles.d from /usr/local/lib, so
# nothing lands in /usr (the distribution's) and /etc/systemd/system stays free for the
# administrator's own units and drop-ins (`systemctl edit darkroom`). A distribution
# package uses PREFIX=/usr. /etc is /etc whatever the prefix: the daemon reads
# /etc/darkroom/darkroom.toml and logrotate reads /etc/logrotate.d.

PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
UNITDIR      ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR  ?= $(PREFIX)/lib/tmpfiles.d
MANDIR       ?= $(PREFIX)/share/man
SYSCONFDIR   ?= /etc
LOGROTATEDIR ?= $(SYSCONFDIR)/logrotate.d

SWIFT        ?= swift
# e.g. SWIFT_BUILD_FLAGS=--static-swift-stdlib for a binary that does not need the Swift
# toolchain's runtime libraries on the machine it runs on.
SWIFT_BUILD_FLAGS ?=
BIN          := .build/release/darkroom

INSTALL      ?= install
UNITS        := darkroom.service darkroom@.service

.PHONY: all build install uninstall check-units units

all: build

build:
	$(SWIFT) build -c release --product darkroom $(SWIFT_BUILD_FLAGS)

# install does not build: `make && sudo make install` keeps root out of .build/.
install:
	@test -x $(BIN) || { echo "make install: no $(BIN); run 'make' first" >&2; exit 1; }
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(LOGROTATEDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/darkroom
	for unit in $(UNITS); do \
		sed 's|@BINDIR@|$(BINDIR)|g' systemd/$$unit.in > $(DESTDIR)$(UNITDIR)/$$unit.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit.tmp && \
		mv -f $(DESTDIR)$(UNITDIR)/$$unit.tmp $(DESTDIR)$(UNITDIR)/$$unit || exit 1; \
	done
	$(INSTALL) -m 0644 systemd/sysusers.d/darkroom.conf $(DESTDIR)$(SYSUSERSDIR)/darkroom.conf
	$(INSTALL) -m 0644 systemd/tmpfiles.d/darkroom.conf $(DESTDIR)$(TMPFILESDIR)/darkroom.conf
	$(INSTALL) -m 0644 systemd/logrotate.d/darkroom $(DESTDIR)$(LOGROTATEDIR)/darkroom
	$(INSTALL) -m 0644 man/darkroom.1 $(DESTDIR)$(MANDIR)/man1/darkroom.1
	@# 0755 here; systemd-tmpfiles makes it root:darkroom 0750 once the group exists.
	$(INSTALL) -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/darkroom
	$(INSTALL) -m 0644 systemd/darkroom.toml.example $(DESTDIR)$(SYSCONFDIR)/darkroom/darkroom.toml.example
	@if [ -z "$(DESTDIR)" ]; then \
		echo; \
		echo "Installed. Next, as root (docs/systemd.md):"; \
		echo "  systemd-sysusers darkroom.conf"; \
		echo "  systemd-tmpfiles --create darkroom.conf"; \
		echo "  systemctl daemon-reload"; \
		echo "  systemctl enable --now darkroom"; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/darkroom
	for unit in $(UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$$unit; done
	rm -f $(DESTDIR)$(SYSUSERSDIR)/darkroom.conf $(DESTDIR)$(TMPFILESDIR)/darkroom.conf
	rm -f $(DESTDIR)$(LOGROTATEDIR)/darkroom $(DESTDIR)$(MANDIR)/man1/darkroom.1
	rm -f $(DESTDIR)$(SYSCONFDIR)/darkroom/darkroom.toml.example
	rmdir $(DESTDIR)$(SYSCONFDIR)/darkroom 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ]; then \
		echo; \
		echo "Stop the service first if it runs (systemctl disable --now darkroom 'darkroom@*'),"; \
		echo "then: systemctl daemon-reload. Kept: /etc/darkroom/darkroom.toml, /var/lib/darkroom,"; \
		echo "the user darkroom (userdel darkroom)."; \
	fi

check-units:
	scripts/check-units

# The committed units are the templates filled in for the default PREFIX (SPEC §5: the
# repository ships systemd/darkroom.service). scripts/check-units fails when they drift.
units: $(addprefix systemd/,$(UNITS))

systemd/%.service: systemd/%.service.in
	sed 's|@BINDIR@|/usr/local/bin|g' $< > $@
