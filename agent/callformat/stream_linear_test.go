package callformat

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rescanStream is the stream parser as it was before scanMemo: each Feed
// runs the partial scan on all the text so far, from scratch, and joins
// all the content and reasoning. It is the reference the memoized parser
// must match delta for delta.
type rescanStream struct{ streamParser }

func (p *rescanStream) Feed(text string) []Delta {
	p.text.WriteString(text)
	s := &scanState{text: p.text.String()}
	p.f.scan(p.f, s)
	var out []Delta
	var content, reasoning strings.Builder
	k := 0
	for _, it := range s.items {
		switch it.kind {
		case kindContent:
			content.WriteString(it.text)
			if d := rescanGrown(content.String(), &p.content); d != "" {
				out = append(out, Delta{Content: d})
			}
		case kindReasoning:
			reasoning.WriteString(it.text)
			if d := rescanGrown(reasoning.String(), &p.thinking); d != "" {
				out = append(out, Delta{Reasoning: d})
			}
		case kindCall:
			if d := p.callDelta(k, it.call); d != nil {
				out = append(out, Delta{Call: d})
			}
			k++
		}
	}
	return out
}

func rescanGrown(acc string, sent *int) string {
	t := trimSpace(acc)
	if len(t) <= *sent {
		return ""
	}
	d := t[*sent:]
	*sent = len(t)
	return d
}

// memoOptions are the option sets whose scanners differ.
var memoOptions = map[string]Options{"": {}, "reasoning open": {ReasoningOpen: true}, "no calls": {NoCalls: true}}

func memoFormat(t testing.TB, name string, opts Options) *format {
	t.Helper()
	opts.Rand = rand.New(rand.NewPCG(1, 2))
	f, err := NewWithOptions(name, parseTools, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f.(*format)
}

// checkMemo feeds chunks to the memoized parser and to rescanStream and
// fails at the first Feed whose deltas differ, or if Finish differs.
func checkMemo(t *testing.T, name string, opts Options, chunks []string) {
	t.Helper()
	got := memoFormat(t, name, opts).Stream()
	want := &rescanStream{streamParser{f: memoFormat(t, name, opts)}}
	for i, c := range chunks {
		if diff := cmp.Diff(want.Feed(c), got.Feed(c)); diff != "" {
			t.Fatalf("%s: Feed(%q) after %q differs from a full rescan (-rescan +memo):\n%s", name, c, strings.Join(chunks[:i], ""), diff)
		}
	}
	if diff := cmp.Diff(want.Finish(), got.Finish()); diff != "" {
		t.Fatalf("%s: Finish() of %q differs from a full rescan (-rescan +memo):\n%s", name, strings.Join(chunks, ""), diff)
	}
}

// memoTexts are the parser tests' texts, the stream seeds, and the big
// replies cut short.
func memoTexts() []string {
	texts := append([]string{}, streamSeeds...)
	for _, s := range [][]string{hermesSeeds, qwen3CoderSeeds, llama3Seeds, mistralSeeds, harmonySeeds, promptSeeds} {
		texts = append(texts, s...)
	}
	for _, tests := range moreTables {
		texts = append(texts, prefixed(tests)...)
	}
	for _, r := range bigReplies(120) {
		texts = append(texts, r.text, r.text[:len(r.text)*2/3])
	}
	texts = append(texts,
		// a control character breaks a string; escapes, surrogate pairs
		// and runes cut by a piece; broken UTF-8.
		"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\x01b\"}}\n</tool_call>",
		`{"name": "write_file", "parameters": "{\"path\": \"\\ud83d\\ude00 \\u00e9 \\n \\ud800x \\\"q\\\"\"}"}`,
		`{"answer": "caf\u00e9 \ud83d\ude00 \ud83d \"quoted\" \\ tab\t é ✓ 日本"}`,
		"<tool_call>\n<function=write_file>\n<parameter=content>\nbad \xff\xfe utf-8 \xe2\x82 and ✓ \"q\" \\ \u2028\n</parameter>\n</function>\n</tool_call>",
	)
	for _, r := range bigReplies(500)[:8] { // the replies of many calls
		texts = append(texts, r.text, r.text[:len(r.text)*2/3])
	}
	return texts
}

func prefixed(tests []parseTest) []string { return texts(tests) }

// TestStreamMatchesRescan checks that the memoized stream parser emits, at
// every Feed, exactly what a full rescan of the text so far emits, for
// every format and option set, the texts fed whole, byte by byte and in
// random pieces.
func TestStreamMatchesRescan(t *testing.T) {
	texts := memoTexts()
	for _, name := range formatNames {
		for oname, opts := range memoOptions {
			t.Run(name+"/"+oname, func(t *testing.T) {
				for i, text := range texts {
					for _, chunks := range [][]string{{text}, splitBytes(text), splitRandom(text, uint64(i))} {
						checkMemo(t, name, opts, chunks)
					}
				}
			})
		}
	}
}

// FuzzStreamMemo checks the memoized parser against a full rescan on any
// text, in random pieces.
func FuzzStreamMemo(f *testing.F) {
	for i, s := range memoTexts() {
		if len(s) < 2000 {
			f.Add(uint8(i), s, uint64(i))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, text string, seed uint64) {
		if len(text) > 4096 {
			return
		}
		name := formatNames[int(which)%len(formatNames)]
		opts := Options{ReasoningOpen: which&0x80 != 0, NoCalls: which&0x40 != 0}
		checkMemo(t, name, opts, splitRandom(text, seed))
	})
}

// streamCost feeds the reply 4 bytes at a time and returns the bytes the
// scan's memoized steps read and the bytes the stream allocated.
func streamCost(t *testing.T, format, text string) (work int, alloc uint64) {
	f := memoFormat(t, format, Options{})
	p := f.Stream().(*streamParser)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < len(text); i += 4 {
		p.Feed(text[i:min(i+4, len(text))])
	}
	runtime.ReadMemStats(&after)
	return p.memo.work, after.TotalAlloc - before.TotalAlloc
}

// TestStreamLinear checks, without timing anything, that streaming a reply
// costs in proportion to its length: a reply 4 times as long, fed 4 bytes
// at a time, reads at most 5 times the bytes and allocates at most 5 times
// as much (a rescan of the text so far at each Feed costs 16 times).
func TestStreamLinear(t *testing.T) {
	small, large := bigReplies(10<<10), bigReplies(40<<10)
	for k, r := range small {
		t.Run(r.name, func(t *testing.T) {
			w1, a1 := streamCost(t, r.format, r.text)
			w4, a4 := streamCost(t, r.format, large[k].text)
			ratio := func(a, b float64) string { return fmt.Sprintf("%.1f", b/max(a, 1)) }
			t.Logf("10 KB: read %d, allocated %d; 40 KB: read %d (%s×), allocated %d (%s×)",
				w1, a1, w4, ratio(float64(w1), float64(w4)), a4, ratio(float64(a1), float64(a4)))
			if w4 > 5*max(w1, 1) {
				t.Errorf("40 KB read %d bytes, 10 KB %d: more than 5 times", w4, w1)
			}
			if a4 > 5*a1 {
				t.Errorf("40 KB allocated %d bytes, 10 KB %d: more than 5 times", a4, a1)
			}
		})
	}
}
