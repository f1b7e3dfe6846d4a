package challenge

import (
	"os"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestMain runs the tests as testkit.Run does: the collector paced for a process of many runs,
// and a model cache of their own.
func TestMain(m *testing.M) { os.Exit(testkit.Run(m)) }
