# A decoder that answers outside the interface: its readout kind is none of the readout kinds.
package contractcheck.decoders.bad_kind

readout := {"kind": "maybe"}
