package visibility

import (
	"context"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// A record of a stage that binds none of the compartments the readout reads gets no reading
// (a model whose tasks read compartments of other names), while a stage that declares them
// unbound is read, as empty views.
func TestBinds(t *testing.T) {
	m := &contract.Model{Lanes: map[string]contract.Lane{
		"own":     {Stages: map[string]contract.StageDef{"H4": {Compartments: map[string]contract.Compartment{"body": {}}}}},
		"unbound": {Stages: map[string]contract.StageDef{"H4": {Unbound: map[string]string{"structured": "no slot"}}}},
		"bound":   {Stages: map[string]contract.StageDef{"H4": {Compartments: map[string]contract.Compartment{"content": {}}}}},
	}}
	r := &Reader{model: m, stages: map[string]bool{"H4": true}, fixtures: map[string]bool{"V01": true}}
	tests := []struct {
		name, lane string
		want       bool
	}{
		{"other names", "own", false},
		{"declared unbound", "unbound", true},
		{"bound", "bound", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.binds(tt.lane, "H4"); got != tt.want {
				t.Errorf("binds(%s, H4) = %v, want %v", tt.lane, got, tt.want)
			}
		})
	}
	rd, err := r.Read(context.Background(), result.Observation{Position: result.Position{Fixture: "V01", Lane: "own", Stage: "H4"}, State: "captured"}, nil)
	if err != nil || rd != nil {
		t.Errorf("Read of a stage binding none: %+v, %v; want no reading", rd, err)
	}
}
