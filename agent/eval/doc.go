// Package eval measures the agent: it runs scenarios through the real
// loop (agent/loop) under several configurations of its reliability
// layer and reports which passed, with how much certainty. It is the
// harness of seed 000 Example 13 with the statistics of Example 9.
//
// A Scenario is a task, a workspace, the model's replies when they are
// scripted (a live model answers otherwise), and a Pass condition: the
// agent's own verification, a check command run afterwards, the right
// calls, or an answer pattern. A Suite is a directory of scenarios
// (LoadSuite; each subdirectory holds a scenario.json and optionally a
// workspace/), or a built-in: "seed13", the seven scenarios of Example
// 13, and "classifier", the eleven replies of Example 1. FromTranscript
// turns a `loop run` transcript into a scenario.
//
// A Config is a named set of agent settings; its zero value is loop's
// default agent ("full"), and the built-ins raw, +repair, +retry, +loop
// and +verify add one technique each, as the seed's table does:
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
// p < 0.05. Plan answers how many prompts tell two rates apart (Example
// 9: 90% from 85% needs 700). The report is text, JSON (WriteJSON,
// ReadReport) or one self-contained HTML page with an SVG chart
// (WriteHTML).
package eval
