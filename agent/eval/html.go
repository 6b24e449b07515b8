package eval

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/loopagent/loop/internal/decimal"
)

// chartMetrics are the rates the chart draws, with their colours.
var chartMetrics = []struct {
	name, colour string
	rate         func(Summary) Rate
}{
	{"pass", "#2b6cb0", func(s Summary) Rate { return s.Pass }},
	{"parsed, raw", "#dd6b20", func(s Summary) Rate { return s.ParsedRaw }},
	{"parsed, after repair", "#d69e2e", func(s Summary) Rate { return s.Parsed }},
	{"schema-valid", "#38a169", func(s Summary) Rate { return s.SchemaValid }},
	{"right call", "#805ad5", func(s Summary) Rate { return s.RightCall }},
}

// WriteHTML writes the report as one self-contained HTML page: the table,
// an inline SVG bar chart of each configuration's rates with their 95%
// Wilson intervals as whiskers, the rates and the comparisons. It loads
// nothing and runs no script.
func (r *Report) WriteHTML(w io.Writer) error {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>loop eval: %s</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #1a202c; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #cbd5e0; padding: 0.2em 0.6em; text-align: left; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.pass { background: #c6f6d5; } td.fail { background: #fed7d7; }
pre { background: #f7fafc; padding: 1em; }
</style>
</head>
<body>
<h1>loop eval: suite %s</h1>
<p>%d scenarios, %d configurations, %d run(s) each. The chart shows each configuration's rates; the whiskers are their 95%% Wilson intervals.</p>
`, e(r.Suite), e(r.Suite), len(r.Scenarios), len(r.Configs), max(r.Seeds, 1))
	r.htmlTable(&b)
	b.WriteString(r.Chart())
	b.WriteString("\n<h2>Rates</h2>\n<pre>" + e(r.Rates()) + "</pre>\n")
	b.WriteString("<h2>Pairwise, on the same runs</h2>\n<pre>" + e(r.Differences()) + "</pre>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
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

// Chart is the SVG bar chart: a group of bars per configuration, one per
// rate, each with a whisker from the low to the high end of its interval.
// A rate with no trials is not drawn.
func (r *Report) Chart() string {
	const (
		left, top, plotH, barW, gap = 50, 20, 240, 14, 30
	)
	groupW := len(chartMetrics)*barW + gap
	width := max(left+len(r.Summaries)*groupW+20, 480) // room for the legend
	height := top + plotH + 60 + 20*len(chartMetrics)
	y := func(p float64) string { return decimal.Fixed(top+plotH*(1-p), 1) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="rates-chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="rates with 95%% Wilson intervals">
`, width, height, width, height)
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#e2e8f0"/><text x="%d" y="%s" font-size="11" text-anchor="end" dominant-baseline="middle">%s%%</text>
`, left, width-20, y(p), y(p), left-6, y(p), decimal.Fixed(100*p, 0))
	}
	for i, s := range r.Summaries {
		x0 := left + i*groupW + gap/2
		for j, m := range chartMetrics {
			rate := m.rate(s)
			if rate.N == 0 {
				continue
			}
			x, iv := x0+j*barW, rate.Interval()
			fmt.Fprintf(&b, `<rect class="bar" x="%d" y="%s" width="%d" height="%s" fill="%s"><title>%s %s: %s %s</title></rect>
`, x, y(rate.P()), barW-2, decimal.Fixed(plotH*rate.P(), 1), m.colour, html.EscapeString(s.Config), m.name, rate.Fraction(), html.EscapeString(rate.String()))
			cx := x + (barW-2)/2
			fmt.Fprintf(&b, `<line class="whisker" x1="%d" x2="%d" y1="%s" y2="%s" stroke="#1a202c"/>
`, cx, cx, y(iv.Low), y(iv.High))
			for _, end := range []float64{iv.Low, iv.High} {
				fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#1a202c"/>
`, cx-3, cx+3, y(end), y(end))
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="middle">%s</text>
`, x0+len(chartMetrics)*barW/2, top+plotH+16, html.EscapeString(s.Config))
	}
	for j, m := range chartMetrics {
		ly := top + plotH + 40 + 20*j
		label := m.name
		if j > 0 && j < 3 {
			label += " (" + r.parseLabel() + ")"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="12">%s</text>
`, left, ly, m.colour, left+18, ly+10, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// parseLabel says whether the parse rates of all the configurations were
// measured without a grammar.
func (r *Report) parseLabel() string {
	for _, s := range r.Summaries {
		if s.Grammar {
			return "some under a grammar: there the grammar's rate, not the model's"
		}
	}
	return "no grammar"
}
