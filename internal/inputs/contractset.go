package inputs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// contractSetFormat names the recipe of ContractSet; it changes whenever the recipe does.
const contractSetFormat = "contractcheck-contract-set-v1"

// ContractSet is the digest of what decides a reading under these options: the profile ("" is
// DefaultProfile, as the instrument loads it), the MCP revision sources no catalogue entry names
// are validated against (Revision; "" is the pinned one, schema.DefaultRevision), and the bytes of
// every file of every layer the run loads — contracts, policies, schemas (the built-in ones
// always) and fixtures, built-in layers included (by their bytes, not by the build), each layer's
// files as the result cache hashes them (layer.Dir.Hash: path within the layer, length, bytes),
// in layer order, where a layer lies left out. A fixture layer's observations/ are records, not
// the contract set: they are left out. The scope (--lane, …) and the observations are not part of
// it: censuses of one contract set over other records or scopes merge. It is the sha256 in 64
// lower-case hexadecimal digits: a census names its contract set by it (internal/censusdir), and
// check --census refuses a census of another.
func (o Options) ContractSet() (string, error) {
	profile, revision := o.Profile, o.Revision
	if profile == "" {
		profile = DefaultProfile // as the instrument loads it
	}
	if revision == "" {
		revision = schema.DefaultRevision // the same set whether the pinned revision is named or not
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nprofile %q\nrevision %q\n", contractSetFormat, profile, revision)
	schemas := append([]Dir{layer.Builtin(o.BuiltinFS(), "schemas")}, o.SchemaLayers()...)
	byPlace := func(i int, _ Dir) string { return strconv.Itoa(i) }
	if err := HashLayers(h, o.ContractLayers(), o.PolicyLayers(), schemas, o.FixtureLayers(), byPlace); err != nil {
		return "", fmt.Errorf("the contract set's digest: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashUserLayers writes to h o's user layers alone (the built-in ones left out), kind by kind,
// each labelled by its directory as given, quoted, as HashLayers writes them: the key of a
// user's base the instrument shares between loads in one process.
func (o Options) HashUserLayers(h io.Writer) error {
	asGiven := func(_ int, d Dir) string { return strconv.Quote(d.Display) }
	return HashLayers(h, layer.Users(o.Contracts), layer.Users(o.Policies), layer.Users(o.Schemas), layer.Users(o.Fixtures), asGiven)
}

// HashLayers writes to h the layers of the four kinds a contract set is read from, kind by kind —
// contracts, policies, schemas, fixtures — each as a line "layer <kind> <label>" (label(i, d):
// the layer's place i in its kind, or its directory) and then its files as layer.Dir.Hash writes
// them, a fixture layer's observations/ left out (they are records, not the contract set).
// ContractSet hashes the run's layer stacks so; HashUserLayers the user's layers as given.
func HashLayers(h io.Writer, contracts, policies, schemas, fixtures []Dir, label func(i int, d Dir) string) error {
	for _, kind := range []struct {
		name   string
		layers []Dir
		skip   func(rel string) bool
	}{
		{"contracts", contracts, nil},
		{"policies", policies, nil},
		{"schemas", schemas, nil},
		{"fixtures", fixtures, func(rel string) bool { return rel == "observations" }},
	} {
		for i, d := range kind.layers {
			fmt.Fprintf(h, "layer %s %s\n", kind.name, label(i, d))
			if err := d.Hash(h, kind.skip); err != nil {
				return err
			}
		}
	}
	return nil
}
