package pipeline

import (
	"context"
	"crypto/sha256"

	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// Visibility prepares the visibility policy the model names for the instrument's profile, on the
// instrument's compiled policies (nil when the model selects no fixture or stage for it): the
// readout check and compare read beside the tasks.
func Visibility(ctx context.Context, in *instrument.Instrument) (*visibility.Reader, error) {
	return visibility.New(ctx, in.Model, in.Options().Profile, in.BlockKinds(), in.Engine(), in)
}

// ReadVisibility evaluates the visibility policy's channels on one record: nil when the record is
// of no fixture or stage the readout reads. The record's views are the instrument's, cached by
// the carrier's bytes (instrument.Observe): a view the record's tasks read is not projected twice.
// A failing evaluation is the instrument failing (result.AsInstrument).
func ReadVisibility(ctx context.Context, in *instrument.Instrument, vis *visibility.Reader, rec *instrument.Record) (*visibility.Reading, error) {
	if !vis.Reads(rec.Fixture, rec.Stage) {
		return nil, nil
	}
	rd, err := vis.Read(ctx, rec.Observation, func(compartment string) (project.View, [sha256.Size]byte, error) {
		o, err := in.Observe(rec, compartment)
		if err != nil {
			return nil, [sha256.Size]byte{}, err
		}
		return o.View(), o.Hash(), nil
	})
	if err != nil {
		return nil, result.AsInstrument(err)
	}
	return rd, nil
}
