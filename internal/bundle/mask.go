package bundle

// MaskPolicy is the mask policy docs/opa.md ("Decision logs") gives for a bundle of its own beside
// the contract set (mask/mask.rego, with mask/.manifest {"roots": ["system/log"]}): OPA erases
// from each logged decision's input every member that holds the user's data, the carrier and the
// source posted for a result no catalogue entry names. The other members name a position, a
// digest and a place. The result holds no value of the user's data unless the bundle was built
// with Settings.QuoteData (rego/decision.rego, logged_value).
const MaskPolicy = `package system.log

# The user's data in a decision's input: the carrier, and the source of an uncatalogued result.
mask contains "/input/carrier"

mask contains "/input/source"
`

// MaskManifest is the mask bundle's .manifest.
const MaskManifest = `{"roots": ["system/log"]}`
