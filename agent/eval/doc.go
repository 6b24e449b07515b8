// Package eval measures the agent: it runs scenarios through the real
// loop (agent/loop) under several configurations of its reliability
// layer and reports which passed, with how much certainty, so that a
// technique is kept because it helped and not because one run went well.
//
// A Scenario is a task, a workspace, the model's replies when they are
// scripted (a live model answers otherwise), and a Pass condition: the
// agent's own verification, a check command run afterwards, the right
// calls, or an answer pattern. A Suite is a directory of scenarios
// (LoadSuite; each subdirectory holds a scenario.json and optionally a
// workspace/), or a built-in: "seed13", seven scripted runs of one small
// bug fix, each with one typical failure of a small model, and
// "classifier", eleven single replies, one per failure kind of package
// classify. FromTranscript turns a `loop run` transcript into a scenario.
//
// A Config is a named set of agent settings; its zero value is loop's
// default agent ("full"), and the built-ins raw, +repair, +retry, +loop
// and +verify add one technique each, so that a table shows what each
// technique adds:
//
//	suite, _ := eval.LookupSuite("seed13")
//	raw, _ := eval.LookupConfig("raw")
//	rep, err := eval.Runner{Seeds: 1}.Run(ctx, suite, []eval.Config{raw, {Name: "full"}})
//	rep.WriteText(os.Stdout) // the table, the rates, the comparisons
//
// Runner runs each (scenario, configuration, seed) sequentially in a
// fresh temporary workspace. Scripted scenarios use model.NewScript; a
// Factory in Runner.Live supplies a live model (`loop eval -m`). A run
// that fails is a Result with its reason (json, args, cut off, steps,
// loop, unverified, wrong call, ...); an error is the harness's own
// failure.
//
// The Report holds every Result and, per configuration, the pass rate,
// pass^k (the scenarios that passed in all k seeds), the parse rate
// as written and after repair (labelled when a grammar made it 100% by
// construction), the schema-valid and the right-call rate, each with its
// 95% Wilson interval (Wilson, Rate). Compare says whether two
// configurations differ beyond noise on the same runs: their intervals
// do not overlap and the exact McNemar test on the discordant pairs has
// p < 0.05. Plan answers how many prompts tell two rates apart (90% from
// 85% needs 700). The report is text, JSON (WriteJSON, ReadReport) or one
// self-contained HTML page with an SVG chart (WriteHTML).
//
// The built-in suites and configurations, the table's layout and the
// statistics' reference figures come from the project's specification
// (../shared/seeds); the tests compare with them.
package eval
