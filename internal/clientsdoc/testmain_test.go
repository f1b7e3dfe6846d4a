package main

import (
	"os"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestMain gives the tests a model cache of their own: they load user contract layers.
func TestMain(m *testing.M) { os.Exit(testkit.RunWithOwnCache(m)) }
