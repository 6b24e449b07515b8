package main

import (
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// settings is a small Go file of constants and a function that returns a
// name: what the read and recover families ask about.
type settings struct {
	pkg    string
	consts []string
	vals   []int
	fn     string
	ret    string // what fn returns
}

func newSettings(r *rand.Rand, e env, pkg string) settings {
	if e.wide {
		names := e.constNames(r, nil, 4)
		return settings{pkg: pkg, consts: names[:3], vals: distinct(r, 3, 2, 900), fn: names[3],
			ret: pick(r, nameWords) + "-" + pick(r, nameWords)}
	}
	return settings{pkg: pkg, consts: pickN(r, constants, 3), vals: distinct(r, 3, 2, 900),
		fn: pick(r, funcNames), ret: pick(r, services)}
}

// source is the file, as gofmt writes it.
func (s settings) source() string {
	var b strings.Builder
	b.WriteString("package " + s.pkg + "\n\nconst (\n")
	for i, c := range s.consts {
		b.WriteString("\t" + c + " = " + itoa(s.vals[i]) + "\n")
	}
	b.WriteString(")\n\n// " + s.fn + " returns the configured " + strings.ToLower(s.fn) + ".\n")
	b.WriteString("func " + s.fn + "() string {\n\treturn \"" + s.ret + "\"\n}\n")
	return gofmt(b.String())
}

// question is a question about a file, its answer, the answer's regular
// expression, the line that grounds it, and, for a constant, its name.
type question struct {
	q, a, re, line, constant string
}

// question asks about one constant or the function.
func (s settings) question(r *rand.Rand, file string) question {
	if r.IntN(4) == 0 {
		q := pick(r, []string{"What does " + s.fn + " in " + file + " return?", "What does " + s.fn + "() return? It is in " + file + "."})
		return question{q, s.fn + " returns \"" + s.ret + "\".", regexp.QuoteMeta(s.ret), "return \"" + s.ret + "\"", ""}
	}
	i := r.IntN(len(s.consts))
	c, v := s.consts[i], itoa(s.vals[i])
	q := pick(r, []string{"What is " + c + " in " + file + "?", "What value does " + file + " give " + c + "?", "Look at " + file + ": what is " + c + " set to?"})
	return question{q, c + " is " + v + ".", `\b` + v + `\b`, lineWith(s.source(), c+" "), c}
}

// readTask is the read-and-answer family: one read_file call, then the
// answer, from a Go file of settings or a JSON config.
func readTask(r *rand.Rand, e env) Task {
	p := emptyPackage(r, e)
	files := append([]File{{"go.mod", "module " + p.module + "\n\ngo 1.22\n"}}, p.extras...)
	if r.IntN(3) == 0 {
		t := configTask(r, e, files)
		t.Variant = "json"
		return t
	}
	pkg := pkgName(p.dir, p.module)
	s := newSettings(r, e, pkg)
	file := p.pathOf(pick(r, []string{"config.go", "settings.go", "limits.go", "defaults.go"}))
	files = append(files, File{file, s.source()})
	if doc := p.pathOf("doc.go"); !hasFile(files, doc) {
		files = append(files, File{doc, "// Package " + pkg + " is the " + s.ret + " service.\npackage " + pkg + "\n"})
	}
	q := s.question(r, file)
	return Task{Files: files, Text: q.q, Replies: []string{readFile(file), q.a}, Want: loop.Done,
		Answer: q.re, FirstTool: "read_file", Grounds: []string{q.line}, Variant: "go"}
}

// hasFile reports whether files holds one at path p.
func hasFile(files []File, p string) bool {
	for _, f := range files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// configKeys are the settings of a wide config (--names wide).
var configKeys = []string{"port", "workers", "timeout_ms", "max_retries", "batch_size", "cache_mb", "replicas",
	"queue_depth", "poll_seconds", "max_conns", "page_size", "buffer_kb", "shards", "ttl_seconds", "rate_limit",
	"min_free_mb", "backoff_ms", "max_body_kb", "idle_seconds", "threads", "history_days", "max_jobs", "chunk_size"}

// configTask asks about a JSON config file: with wide names, half of the
// time about one of four settings drawn from configKeys.
func configTask(r *rand.Rand, e env, files []File) Task {
	if e.wide && r.IntN(2) == 0 {
		return wideConfigTask(r, files)
	}
	name, port, workers, debug := pick(r, services), pick(r, []int{3000, 5000, 8000, 8080, 8443, 9000, 9090}), between(r, 2, 32), r.IntN(2) == 0
	db := "false"
	if debug {
		db = "true"
	}
	file := pick(r, []string{"config.json", "settings.json", "app.json"})
	files = append(files, File{file, "{\n  \"name\": \"" + name + "\",\n  \"port\": " + itoa(port) + ",\n  \"workers\": " + itoa(workers) + ",\n  \"debug\": " + db + "\n}\n"})
	t := Task{Files: files, Want: loop.Done, FirstTool: "read_file"}
	var a string
	switch r.IntN(3) {
	case 0:
		t.Text, a, t.Answer = "Which port does "+file+" set?", file+" sets port "+itoa(port)+".", `\b`+itoa(port)+`\b`
		t.Grounds = []string{"\"port\": " + itoa(port)}
	case 1:
		t.Text, a, t.Answer = "How many workers does "+file+" configure?", itoa(workers)+" workers.", `\b`+itoa(workers)+`\b`
		t.Grounds = []string{"\"workers\": " + itoa(workers)}
	default:
		t.Text, t.Answer = "Is debug on in "+file+"?", `(?i)^`+map[bool]string{true: "yes", false: "no"}[debug]
		a = map[bool]string{true: "Yes, debug is true.", false: "No, debug is false."}[debug]
		t.Grounds = []string{"\"debug\": " + db}
	}
	t.Replies = []string{readFile(file), a}
	return t
}

// wideConfigTask asks about one of four settings of a JSON config file,
// drawn from configKeys with distinct values.
func wideConfigTask(r *rand.Rand, files []File) Task {
	keys, vals := pickN(r, configKeys, 4), distinct(r, 4, 2, 9000)
	var b strings.Builder
	b.WriteString("{\n  \"name\": \"" + pick(r, nameWords) + "-" + pick(r, nameWords) + "\"")
	for i, k := range keys {
		b.WriteString(",\n  \"" + k + "\": " + itoa(vals[i]))
	}
	b.WriteString("\n}\n")
	file := pick(r, []string{"config.json", "settings.json", "app.json"})
	i := r.IntN(len(keys))
	k, v := keys[i], itoa(vals[i])
	q := pick(r, []string{"What is " + k + " in " + file + "?", "What does " + file + " set " + k + " to?", "Look at " + file + ": what is " + k + "?"})
	return Task{Files: append(files, File{file, b.String()}), Text: q, Want: loop.Done, FirstTool: "read_file",
		Answer: `\b` + v + `\b`, Grounds: []string{"\"" + k + "\": " + v}, Replies: []string{readFile(file), k + " is " + v + "."}}
}
