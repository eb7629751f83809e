package postgrestest

import "testing"

func TestParseExport(t *testing.T) {
	u, ok := parseExport("postgres.sh: already running\nexport AGENTSCOPE_TEST_POSTGRES_URL='postgres://p@127.0.0.1:1/db?sslmode=disable'\n")
	if !ok || u != "postgres://p@127.0.0.1:1/db?sslmode=disable" {
		t.Errorf("parseExport = %q, %v", u, ok)
	}
	if _, ok := parseExport("export OTHER=x\n"); ok {
		t.Error("parseExport took another variable")
	}
}
