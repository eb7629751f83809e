// Package postgrestest gives tests a real PostgreSQL: CI starts a private
// cluster with scripts/postgres.sh and sets AGENTSCOPE_TEST_POSTGRES_URL;
// without the variable, Main starts one for the test binary with the same
// script (installing PostgreSQL from Debian's packages when it is missing)
// and stops it at the end. A test fails, never skips, when no server can be
// had. Each test gets its own schema (Schema), so tests run in parallel on
// one database.
//
// It lives in the session/postgres module, beside the pgx dependency it
// needs, so the core module stays free of it. Starting a server needs this
// repository's checkout (scripts/postgres.sh at its root); outside it, set
// AGENTSCOPE_TEST_POSTGRES_URL to a server of your own.
package postgrestest
