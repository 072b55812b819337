# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# A private PostgreSQL server for the integration tests (sourced, not run):
# a fresh cluster in a temp directory, reached through a unix socket in
# that directory only (no TCP), run as the postgres user when we are root
# (the server refuses to run as root).
#   pg_start ENCODING   initdb + start; returns 0, 77 when PostgreSQL or the
#                       postgres user is missing (the reason on stderr), or
#                       1 when the server did not start (its log on stderr)
#   pg_sql ARGS...      psql on its postgres database, stopping at an error
#   pg_stop             stop it at once and remove its directory (safe to
#                       call twice, or when pg_start failed)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PG_DIR=
PG_PORT=

pg_as() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_start() {
	local enc=$1
	if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ] || ! command -v psql > /dev/null; then
		echo "PostgreSQL 15 is not installed ($PGBIN/initdb; apt-get install postgresql-15)" >&2
		return 77
	fi
	if [ "$(id -u)" -eq 0 ] && ! id postgres > /dev/null 2>&1; then
		echo "running as root and there is no postgres user to run the server as" >&2
		return 77
	fi
	PG_DIR=$(mktemp -d /tmp/boottrace-pg.XXXXXX) || return 1
	chmod 755 "$PG_DIR"
	[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
	# the port names the socket file in PG_DIR only: no clash with others
	PG_PORT=$((50000 + $$ % 10000))
	if ! pg_as "$PGBIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E "$enc" --no-locale \
		> "$PG_DIR/initdb.log" 2>&1; then
		echo "initdb -E $enc failed:" >&2
		cat "$PG_DIR/initdb.log" >&2
		return 1
	fi
	if ! pg_as "$PGBIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 30 \
		-o "-k $PG_DIR -p $PG_PORT -c listen_addresses=''" start > /dev/null; then
		echo "pg_ctl start failed:" >&2
		cat "$PG_DIR/server.log" >&2
		return 1
	fi
}

pg_sql() {
	pg_as psql -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres -d postgres "$@"
}

pg_stop() {
	[ -n "$PG_DIR" ] || return 0
	[ -d "$PG_DIR/data" ] && pg_as "$PGBIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop > /dev/null 2>&1
	rm -rf "$PG_DIR"
	PG_DIR=
}
