package eval

import (
	"fmt"
	"html"
	"io"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/internal/decimal"
)

// chartMetrics are the rates the chart draws, with their colours. A
// metric with parse set is a parse rate: its legend says whether a
// grammar wrote the replies.
var chartMetrics = []struct {
	name, colour string
	parse        bool
	rate         func(Summary) Rate
}{
	{"pass", "#2b6cb0", false, func(s Summary) Rate { return s.Pass }},
	{"parsed, raw", "#dd6b20", true, func(s Summary) Rate { return s.ParsedRaw }},
	{"parsed, after repair", "#d69e2e", true, func(s Summary) Rate { return s.Parsed }},
	{"schema-valid", "#38a169", false, func(s Summary) Rate { return s.SchemaValid }},
	{"right call", "#805ad5", false, func(s Summary) Rate { return s.RightCall }},
}

// pageStyle is the page's style sheet. The chart takes the page's width
// (its SVG scales with it) but no more of its height than fits on the
// screen; below a readable width it scrolls sideways instead of
// shrinking its text. Long lines in the text blocks wrap.
const pageStyle = `body { font-family: system-ui, sans-serif; margin: 2em; color: #1a202c; line-height: 1.4; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #cbd5e0; padding: 0.2em 0.6em; text-align: left; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.rates td { white-space: normal; } table.rates td + td { white-space: nowrap; }
p.agent { max-width: 60em; }
td.pass { background: #c6f6d5; } td.fail { background: #fed7d7; }
pre { background: #f7fafc; padding: 1em; white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1.5em 0; }
.chart { overflow-x: auto; }
#rates-chart { display: block; width: 100%; min-width: 36em; height: auto; max-height: 80vh; }
ul.legend { list-style: none; padding: 0; margin: 0.8em 0 0; display: flex; flex-wrap: wrap; gap: 0.4em 2em; }
ul.legend li { display: flex; align-items: flex-start; gap: 0.5em; max-width: 100%; overflow-wrap: anywhere; }
ul.legend .swatch { flex: none; width: 0.9em; height: 0.9em; margin-top: 0.25em; }
`

// WriteHTML writes the report as one self-contained HTML page: the
// title (Title), the table, an inline SVG bar chart of each
// configuration's rates with their 95% Wilson intervals as whiskers and
// its legend, each configuration's rates as a table, and the
// comparisons. It loads nothing and runs no script.
func (r *Report) WriteHTML(w io.Writer) error {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
%s</style>
</head>
<body>
<h1>%s</h1>
<p>%s: %d scenarios, %d configurations, %d run(s) each. The chart shows each configuration's rates; the whiskers are their 95%% Wilson intervals.</p>
`, e(r.Title()), pageStyle, e(r.Title()), e(r.modelLine()), len(r.Scenarios), len(r.Configs), max(r.Seeds, 1))
	r.htmlTable(&b)
	b.WriteString("<figure>\n<div class=\"chart\">\n" + r.Chart() + "</div>\n" + r.legend() + "</figure>\n")
	r.htmlRates(&b)
	b.WriteString("<h2>Pairwise, on the same runs</h2>\n<pre>" + e(r.Differences()) + "</pre>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Title names what was measured: the model's file and the suite, as in
// "loop eval: agent-tiny-qwen2-f32.gguf on suite live", or "... on
// demo/suite" where the suite's name says it is one. Without a model
// every run replayed its scenario's scripted replies.
func (r *Report) Title() string {
	m := "scripted replies"
	if r.Model != "" {
		m = filepath.Base(r.Model)
	}
	s := "suite " + r.Suite
	if r.Suite == "suite" || strings.HasSuffix(r.Suite, "/suite") {
		s = r.Suite
	}
	return "loop eval: " + m + " on " + s
}

// modelLine is the model as the command line named it.
func (r *Report) modelLine() string {
	if r.Model == "" {
		return "Scripted replies"
	}
	return "Model " + r.Model
}

// htmlRates writes each configuration's rates as a table of its own,
// each rate with its runs and its 95% Wilson interval, after what the
// agent was.
func (r *Report) htmlRates(b *strings.Builder) {
	e := html.EscapeString
	b.WriteString("<h2>Rates</h2>\n")
	for _, s := range r.Summaries {
		fmt.Fprintf(b, "<h3>%s (%d requests)</h3>\n<p class=\"agent\">Agent: %s</p>\n", e(s.Config), s.Requests, e(s.Agent.String()))
		b.WriteString("<table class=\"rates\">\n<tr><th>rate</th><th>runs</th><th>share [95% interval]</th></tr>\n")
		for _, row := range s.rateRows(max(r.Seeds, 1)) {
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n", e(row.name), row.rate.Fraction(), e(strings.Join(strings.Fields(row.rate.String()), " ")))
		}
		b.WriteString("</table>\n")
		if len(s.RepairKinds) > 0 {
			b.WriteString("<p>" + e(s.repairLine()) + "</p>\n")
		}
	}
}

// htmlTable writes the scenario table.
func (r *Report) htmlTable(b *strings.Builder) {
	e := html.EscapeString
	b.WriteString("<table id=\"results\">\n<tr><th>scenario</th>")
	for _, c := range r.Configs {
		b.WriteString("<th>" + e(c.Name) + "</th>")
	}
	b.WriteString("</tr>\n")
	for _, s := range r.Scenarios {
		b.WriteString("<tr><td>" + e(s) + "</td>")
		for _, c := range r.Configs {
			cell := r.Cell(s, c.Name)
			class := "fail"
			if strings.HasPrefix(cell, "PASS") {
				class = "pass"
			}
			fmt.Fprintf(b, "<td class=\"%s\">%s</td>", class, e(cell))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("<tr><th>pass rate</th>")
	for _, s := range r.Summaries {
		b.WriteString("<th>" + e(s.Pass.Fraction()) + "</th>")
	}
	b.WriteString("</tr>\n</table>\n")
}

// LegendLabels are the chart's legend, one label per metric in
// chartMetrics' order, written out whole; a rate no configuration has
// trials of (no scenario expects calls, say) is drawn nowhere, and its
// label says so.
func (r *Report) LegendLabels() []string {
	var out []string
	for _, m := range chartMetrics {
		label := m.name
		if m.parse {
			label += " (" + r.parseLabel() + ")"
		}
		if !r.measured(m.rate) {
			label += ": not measured here"
		}
		out = append(out, label)
	}
	return out
}

// measured says whether some configuration has trials of the rate.
func (r *Report) measured(rate func(Summary) Rate) bool {
	for _, s := range r.Summaries {
		if rate(s).N > 0 {
			return true
		}
	}
	return false
}

// legend is the chart's legend as an HTML list below the SVG, so that the
// page wraps its labels to any width instead of cutting them.
func (r *Report) legend() string {
	var b strings.Builder
	b.WriteString("<ul class=\"legend\">\n")
	for j, label := range r.LegendLabels() {
		fmt.Fprintf(&b, "<li><span class=\"swatch\" style=\"background: %s\"></span><span class=\"label\">%s</span></li>\n",
			chartMetrics[j].colour, html.EscapeString(label))
	}
	b.WriteString("</ul>\n")
	return b.String()
}

// parseLabel says which configurations' parse rates were measured under
// a grammar (there the rate is the grammar's, not the model's), naming
// them when not all were.
func (r *Report) parseLabel() string {
	var under []string
	for _, s := range r.Summaries {
		if s.Grammar {
			under = append(under, s.Config)
		}
	}
	switch len(under) {
	case 0:
		return "no grammar"
	case len(r.Summaries):
		return "under a grammar: the grammar's rate, not the model's"
	}
	return "under a grammar in " + strings.Join(under, ", ") + ": there the grammar's rate, not the model's"
}

// The chart's geometry, in the SVG's own units: the page scales the whole
// drawing to its width, so these set proportions and the text's size
// relative to the bars.
const (
	chartLeft, chartRight, chartTop = 52.0, 16.0, 16.0
	chartPlotH                      = 280.0
	chartMinPlotW                   = 880.0 // the drawing's width with few configurations
	chartMinBar, chartMaxBar        = 8.0, 40.0
	chartLabelSize, chartLineH      = 16.0, 20.0
	chartCharW                      = 0.6 * chartLabelSize // a wide character's advance, for wrapping labels
)

// chartLayout is where a chart's parts go.
type chartLayout struct {
	plotW, groupW, barW float64
	labels              [][]string // each configuration's name, wrapped to its group's width
	width, height       float64
}

// newChartLayout spreads the configurations' groups over the drawing's
// width, which grows only when the bars would get too thin.
func newChartLayout(configs []string) chartLayout {
	n := max(len(configs), 1)
	minGroup := float64(len(chartMetrics))*chartMinBar*1.25 + 16
	l := chartLayout{plotW: max(chartMinPlotW, float64(n)*minGroup)}
	l.groupW = l.plotW / float64(n)
	l.barW = min(chartMaxBar, 0.8*l.groupW/float64(len(chartMetrics)))
	lines := 1
	for _, c := range configs {
		wrapped := wrapWords(c, max(int(0.95*l.groupW/chartCharW), 1))
		l.labels = append(l.labels, wrapped)
		lines = max(lines, len(wrapped))
	}
	l.width = chartLeft + l.plotW + chartRight
	l.height = chartTop + chartPlotH + 8 + float64(lines)*chartLineH + 8
	return l
}

// y is the vertical position of rate p.
func (l chartLayout) y(p float64) float64 { return chartTop + chartPlotH*(1-p) }

// Chart is the SVG bar chart: a group of bars per configuration, one per
// rate, each with a whisker from the low to the high end of its interval,
// and the configuration's name below its group, wrapped to the group's
// width. A rate with no trials is not drawn; a rate of zero is a hairline
// on the axis. The SVG has a viewBox and no fixed size: the page sets its
// width. Its legend is HTML (LegendLabels).
func (r *Report) Chart() string {
	var names []string
	for _, s := range r.Summaries {
		names = append(names, s.Config)
	}
	l := newChartLayout(names)
	f := func(x float64) string { return decimal.Fixed(x, 1) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="rates-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" preserveAspectRatio="xMinYMin meet" role="img" aria-label="rates with 95%% Wilson intervals">
`, f(l.width), f(l.height))
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e2e8f0"/><text x="%s" y="%s" font-size="14" text-anchor="end" dominant-baseline="middle">%s%%</text>
`, f(chartLeft), f(chartLeft+l.plotW), f(l.y(p)), f(l.y(p)), f(chartLeft-6), f(l.y(p)), decimal.Fixed(100*p, 0))
	}
	for i, s := range r.Summaries {
		g0 := chartLeft + float64(i)*l.groupW
		x0 := g0 + (l.groupW-l.barW*float64(len(chartMetrics)))/2
		for j, m := range chartMetrics {
			if rate := m.rate(s); rate.N > 0 {
				l.bar(&b, x0+float64(j)*l.barW, m.colour, s.Config+" "+m.name, rate)
			}
		}
		cx := g0 + l.groupW/2
		fmt.Fprintf(&b, `<text class="config" x="%s" y="%s" font-size="%s" text-anchor="middle">`, f(cx), f(chartTop+chartPlotH+8), f(chartLabelSize))
		for _, line := range l.labels[i] {
			fmt.Fprintf(&b, `<tspan x="%s" dy="%s">%s</tspan>`, f(cx), f(chartLineH), html.EscapeString(line))
		}
		b.WriteString("</text>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// bar draws one rate's bar at x with its whisker and the whisker's caps.
func (l chartLayout) bar(b *strings.Builder, x float64, colour, title string, rate Rate) {
	f := func(x float64) string { return decimal.Fixed(x, 1) }
	w := l.barW - max(1, l.barW/8) // a gap between neighbouring bars
	h := max(chartPlotH*rate.P(), 1)
	fmt.Fprintf(b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s: %s %s</title></rect>
`, f(x), f(chartTop+chartPlotH-h), f(w), f(h), colour, html.EscapeString(title), rate.Fraction(), html.EscapeString(rate.String()))
	iv, cx, capW := rate.Interval(), x+w/2, min(w/3, 6)
	fmt.Fprintf(b, `<line class="whisker" x1="%s" x2="%s" y1="%s" y2="%s" stroke="#1a202c"/>
`, f(cx), f(cx), f(l.y(iv.Low)), f(l.y(iv.High)))
	for _, end := range []float64{iv.Low, iv.High} {
		fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#1a202c"/>
`, f(cx-capW), f(cx+capW), f(l.y(end)), f(l.y(end)))
	}
}

// wrapWords breaks s into lines of at most width characters at spaces,
// and breaks a longer word where it reaches the width.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len([]rune(word)) > width {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			rs := []rune(word)
			lines, word = append(lines, string(rs[:width])), string(rs[width:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
