package cli_test

import (
	"os"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestMain removes the test binaries once every test is done.
func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }
