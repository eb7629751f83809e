// Package tool holds what an agent can call: the [Tool] interface, typed Go
// function tools ([Func], [StreamFunc]) with JSON Schemas inferred from their
// input struct, the [Toolkit] that groups tools and decides which ones the
// model sees, the streamed result types ([Chunk], [Response]) with the
// reference's merge rules, tool middleware, and [Run], which executes one
// call so that no tool failure, panic or hang can take the agent down.
//
// The package reproduces AgentScope 2.x's toolkit (tool/_toolkit.py,
// tool/_response.py, tool/_base.py) including every text the model sees:
// [NotFoundError], [GroupInactiveError], [JSONDecodeError] and
// [ValidationError] render exactly as the reference's exceptions do, and
// schema-validation messages use the phrasing of Python's jsonschema
// ("'hot' is not of type 'number'"), because those strings end up in the
// conversation and in conformance traces.
//
// A call goes through three steps, each a separate function so the agent
// can interleave its own (permission checks, events):
//
//  1. [Toolkit.Prepare] resolves the tool among the activated groups, parses
//     the raw argument text and validates it against the input schema;
//  2. the agent checks permissions (of [PermissionSubject]: the tool's own
//     permission.Policy, or the generic-tool defaults);
//  3. [Runner.Run] executes the tool and streams its chunks; a [Response]
//     folds the chunks into the final result ([Runner.Collect] does both).
//
// What the agent provides: the activated group names (its state's
// tool_context.activated_groups) to every Toolkit call; for state-injected
// tools, its state in the context ([WithState]) — reset_tools writes the
// new activated set through it ([GroupState]); for structured output, a
// [StoreFunc] given to [NewStructuredOutput], whose tool it adds to the
// "basic" group for a reply that needs one and removes afterwards.
//
// Validation uses github.com/santhosh-tekuri/jsonschema/v6: it implements
// Draft 2020-12 (the draft Python's jsonschema picks for a schema without
// "$schema") completely, compiles a schema once into a reusable validator,
// is pure Go with no dependencies beyond x/text, and returns a structured
// error tree (instance location + typed error kind) from which the
// reference's message can be rendered.
package tool
