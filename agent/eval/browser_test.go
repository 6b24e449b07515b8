package eval

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// chromium is the headless browser the tests render pages in; the test
// skips when none is installed (Debian: apt-get install chromium).
func chromium(t *testing.T) string {
	t.Helper()
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	t.Skip("no chromium: apt-get install chromium to run this check")
	return ""
}

// TestHTMLInBrowser loads the HTML report in headless Chromium through
// scripts/check-html.sh: no console message, nothing loaded but the page,
// and the chart in the rendered DOM. The same page with a console error
// and an image to fetch must fail the check, so that the check is known
// to see them.
func TestHTMLInBrowser(t *testing.T) {
	chromium(t)
	doc := pageOf(t, runSuite(t, Seed13(), "raw", "+verify"))
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.html"), filepath.Join(dir, "bad.html")
	os.WriteFile(good, []byte(doc), 0o644)
	broken := strings.Replace(doc, "</body>", `<script>console.error("broken")</script><img src="missing.png"></body>`, 1)
	os.WriteFile(bad, []byte(broken), 0o644)
	script := filepath.Join("..", "..", "scripts", "check-html.sh")
	out, err := exec.Command("sh", script, good).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok: ") {
		t.Errorf("check-html.sh on the report: %v\n%s", err, out)
	}
	out, err = exec.Command("sh", script, bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), `"broken"`) || !strings.Contains(string(out), "missing.png") {
		t.Errorf("check-html.sh on a page with a console error and an image: %v\n%s; want a failure naming both", err, out)
	}
}

// measureLayout is a script the test adds to a copy of the page: it
// writes, as JSON in <pre id="layout">, the page's content width, the
// chart's rendered width, each legend label whose box overflows or
// reaches past the page's right edge, and each chart text that reaches
// outside the chart's drawing.
const measureLayout = `<script>
const vw = document.documentElement.clientWidth;
const body = document.body.getBoundingClientRect();
const svg = document.getElementById("rates-chart");
const vb = svg.viewBox.baseVal;
const out = {content: body.width, chart: svg.getBoundingClientRect().width, cutLegend: [], cutText: []};
for (const l of document.querySelectorAll("ul.legend li")) {
  const r = l.getBoundingClientRect();
  if (l.scrollWidth > l.clientWidth + 1 || r.right > vw + 1) out.cutLegend.push(l.textContent);
}
for (const tx of svg.querySelectorAll("text")) {
  const b = tx.getBBox();
  if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5) out.cutText.push(tx.textContent);
}
const pre = document.createElement("pre");
pre.id = "layout";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
`

// TestHTMLLayout renders the report with the longest labels in headless
// Chromium at a wide and a narrow window: the chart takes the width of
// the page's content, no legend label is cut or runs off the page, and
// no text of the chart runs outside it.
func TestHTMLLayout(t *testing.T) {
	browser := chromium(t)
	doc := pageOf(t, longLabelReport(t))
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	os.WriteFile(page, []byte(strings.Replace(doc, "</body>", measureLayout+"</body>", 1)), 0o644)
	for _, width := range []int{1280, 480} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
				"--user-data-dir="+filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,900", width),
				"--dump-dom", "file://"+page)
			dom, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", browser, err)
			}
			m := regexp.MustCompile(`<pre id="layout">(.*?)</pre>`).FindSubmatch(dom)
			if m == nil {
				t.Fatalf("no layout in the rendered page:\n%s", dom)
			}
			var got struct {
				Content, Chart     float64
				CutLegend, CutText []string
			}
			if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &got); err != nil {
				t.Fatalf("layout %s: %v", m[1], err)
			}
			if got.Chart < 0.95*got.Content {
				t.Errorf("chart %.0f px wide on a page %.0f px wide; want the page's width", got.Chart, got.Content)
			}
			if len(got.CutLegend) > 0 {
				t.Errorf("legend labels cut off: %q", got.CutLegend)
			}
			if len(got.CutText) > 0 {
				t.Errorf("chart text outside the chart: %q", got.CutText)
			}
		})
	}
}
