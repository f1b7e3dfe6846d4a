# A decoder whose evaluation fails: a builtin error halts it.
package contractcheck.decoders.halts

readout := {"kind": "exact", "observed": to_number("not a number")}
