package instrument

import (
	"context"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
)

// The built-in profiles the tests load.
const (
	strict       = inputs.DefaultProfile
	withholdMeta = "withhold-private-meta"
)

var loaded sync.Map // profile → func() (*Instrument, error)

// loadInstrument loads a built-in profile once per test binary.
func loadInstrument(t *testing.T, profile string) *Instrument {
	t.Helper()
	load, _ := loaded.LoadOrStore(profile, sync.OnceValues(func() (*Instrument, error) {
		return Load(context.Background(), inputs.Options{Profile: profile})
	}))
	in, err := load.(func() (*Instrument, error))()
	if err != nil {
		t.Fatalf("load the %s profile: %v", profile, err)
	}
	return in
}
