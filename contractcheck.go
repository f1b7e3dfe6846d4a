// Package contractcheck holds the built-in data of the checker: the contract model (contracts/),
// the Rego policies (policies/), the pinned and project schemas (schemas/) and the fixtures with
// their observation records (fixtures/), embedded so that `contractcheck check` with no flags runs
// the built-in profile on the built-in data. The checker itself lives under internal/
// (docs/design.md walks its packages).
//
// # Glossary
//
// The words the code uses for the domain (the product's vocabulary; docs/design.md has the
// details). A result travels from the MCP server to the model through five stages:
//
//   - W0: the canonical wire result, the tool's CallToolResult as the server sent it: a
//     fixture's source, validated against the pinned MCP schema.
//   - D1: the object an official MCP SDK decodes the result into.
//   - A2: the agent framework's public application carrier of the result.
//   - M3: the provider-neutral payload the framework hands its model integration.
//   - H4: the provider SDK's HTTP request body, captured at a local transport.
//
// And the words around them:
//
//   - lane: one agent framework (lane id: direct, go-sdk, openai-agents, …) observed at a
//     version and in a configuration; it declares the stages it exposes, each with its
//     carrier schema and compartments.
//   - configuration: the documented setting a lane runs with: "default", or one named after the
//     setting (use-structured-content). Lane, version and configuration are part of a position.
//   - carrier: the JSON object observed at a stage, as an observation record holds it.
//   - compartment: the part of a carrier a consumer reads (the tool message's content list, its
//     structured slot, a provider request's function_call_output.output), declared per lane
//     stage as a compartment binding that a projector (internal/project) executes into a view.
//   - binding: (1) a task evaluated at a position (fixture, lane, version, configuration,
//     stage): the unit that has one outcome (result.Binding); (2) in "compartment binding" and
//     "source binding", the mapping a projector executes: a compartment's allowlisted paths in
//     a carrier, or a revision's W0 result into the source view.
//   - reading: what one repetition of a record says of one binding: outcome, readout,
//     diagnostics (result.Reading). Repetitions collapse only when their readings agree, else
//     the position is unstable.
//   - readout: what a policy reports beside its verdict: a task's readout object (T2: state,
//     type, relation), a decoder policy's value readout (match, missing, wrong, …), and the
//     visibility readout of which channels reach the model (internal/visibility).
//   - family: the group a fixture belongs to in the catalogue (structured, structured-stress,
//     error, rich, meta, numbers, …); divergences and manifestations are counted by family.
//   - manifestation: a stage at which a divergence shows: a (fixture, primary task) pair for
//     which, at that stage, one lane passes and another has a captured unmet. A divergence
//     counts once, its manifestations once per stage.
//
// The package docs under internal/ that use these words refer here.
package contractcheck

import "embed"

// Builtin is the built-in data, rooted at the repository root: contracts/, policies/, schemas/ and
// fixtures/.
//
//go:embed contracts policies schemas fixtures
var Builtin embed.FS
