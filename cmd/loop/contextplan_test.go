package main

import (
	"encoding/json"
	"testing"
)

func TestContextPlan(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"one window", []string{"context-plan", "--ctx", "8192"},
			"window  reserve  tool-cap  read-lines  repo-map  keep-recent  compact-at  search\n" +
				"  8192     1024      1536          38         0         2048        5734  subagent\n"},
		{"triggers", []string{"context-plan", "-c", "32768", "--triggers"},
			"window  reserve  tool-cap  read-lines  repo-map  keep-recent  compact-at  search\n" +
				" 32768     4096      6144         153      1024         8192       22937  direct\n\n" +
				"window   pi       crush    scaled\n32768    16384    26215    22937\n" +
				"openhands: condense above 240 events, keep first 2, summary 1, keep last 117 -> 120 events\n"},
		// seed 002 Example 1's table, with its assumed sizes as the defaults
		{"budget", []string{"context-plan", "--budget", "-c", "8192,16384,32768"},
			"window  reserve  tool-cap  read-lines  repo-map  keep-recent  compact-at  search\n" +
				"  8192     1024      1536          38         0         2048        5734  subagent\n" +
				" 16384     2048      3072          76      1024         4096       11468  subagent\n" +
				" 32768     4096      6144         153      1024         8192       22937  direct\n\n" +
				"window  fixed  reserve  history  history%  steps\n" +
				"  8192   3412     1024     3756     45.8%      2\n" +
				" 16384   3924     2048    10412     63.5%      8\n" +
				" 32768   3924     4096    24748     75.5%     19\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runLoop(t, tt.args...)
			if code != 0 || out != tt.want {
				t.Errorf("loop %v = %d, %q (stderr %q), want %q", tt.args, code, out, errOut, tt.want)
			}
		})
	}
	code, out, _ := runLoop(t, "context-plan", "--json")
	var rep contextPlanReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Strategies) != 3 || rep.Strategies[2].Search != "direct" {
		t.Errorf("loop context-plan --json = %d, %v:\n%s", code, err, out)
	}
	if code, _, _ := runLoop(t, "context-plan", "-c", "100"); code != 2 {
		t.Errorf("loop context-plan -c 100 exited %d, want 2", code)
	}
}
