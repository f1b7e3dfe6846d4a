package instrument

import "github.com/contractcheck/contractcheck/internal/result"

// inputErr classes err as bad input (result.AsInput).
func inputErr(err error) error { return result.AsInput(err) }

// instrumentErr classes err as the instrument failing (result.AsInstrument).
func instrumentErr(err error) error { return result.AsInstrument(err) }
