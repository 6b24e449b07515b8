package eval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLInBrowser loads the HTML report in headless Chromium through
// scripts/check-html.sh: no console message, nothing loaded but the page,
// and the chart in the rendered DOM. The same page with a console error
// and an image to fetch must fail the check, so that the check is known
// to see them. It skips when no Chromium is installed (Debian: apt-get
// install chromium).
func TestHTMLInBrowser(t *testing.T) {
	found := false
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if _, err := exec.LookPath(b); err == nil {
			found = true
		}
	}
	if !found {
		t.Skip("no chromium: apt-get install chromium to run this check")
	}
	var b strings.Builder
	if err := runSuite(t, Seed13(), "raw", "+verify").WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.html"), filepath.Join(dir, "bad.html")
	os.WriteFile(good, []byte(b.String()), 0o644)
	broken := strings.Replace(b.String(), "</body>", `<script>console.error("broken")</script><img src="missing.png"></body>`, 1)
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
