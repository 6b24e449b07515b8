package repomap

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/confined"
)

// Counter counts tokens; the agent gives the model's tokenizer.
type Counter interface {
	Count(text string) int
}

// DefaultTokens is the map's budget when none is given, Aider's default.
const DefaultTokens = 1024

// DefaultMaxFileBytes is the largest source file read.
const DefaultMaxFileBytes = 256 << 10

// SkipDirs are directories that Scan never enters, besides hidden ones.
var SkipDirs = []string{"node_modules", "vendor", "testdata", "third_party", "target", "build", "dist", "__pycache__"}

// Options configure a map. The zero value fills DefaultTokens at 4
// characters per token, with no file of the conversation.
type Options struct {
	// Tokens is the budget; 0 means DefaultTokens, negative means no
	// limit.
	Tokens int
	// Counter counts the map's tokens; nil means ceil(chars / 4).
	Counter Counter
	// Mentioned are the files of the conversation (paths relative to the
	// repository, with slashes): they and what they refer to rank first.
	Mentioned []string
	// Idents are identifiers the conversation mentions.
	Idents []string
	// MaxFileBytes skips larger files; 0 means DefaultMaxFileBytes.
	MaxFileBytes int
}

// Map is a repository map: the files chosen, their text, and the counts.
type Map struct {
	// Files are the files shown, in path order.
	Files []File `json:"files"`
	// Text is the rendered map.
	Text string `json:"text"`
	// Tokens is Text's size; Scanned the number of files read; Sources
	// their size in bytes.
	Tokens  int `json:"tokens"`
	Scanned int `json:"scanned"`
	Sources int `json:"source_bytes"`
}

// Scan reads the source files under dir, skipping hidden directories,
// SkipDirs, links and large files, and builds their map.
//
// dir may be a hostile repository: the walk and the reads go through
// package confined, beneath dir, opening directories and regular files
// only, so a FIFO, a device or a link out of dir is skipped, and a file
// that grew past MaxFileBytes after the walk saw it is not read whole.
func Scan(dir string, opt Options) (*Map, error) {
	max := opt.MaxFileBytes
	if max == 0 {
		max = DefaultMaxFileBytes
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &fs.PathError{Op: "scan", Path: dir, Err: err}
	}
	defer r.Close()
	var files []File
	err = fs.WalkDir(confined.FS(r), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == "." {
				return err
			}
			return nil // an unreadable entry is left out of the map
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || slices.Contains(SkipDirs, d.Name())) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || Language(path) == "" {
			return nil
		}
		src, err := confined.ReadFileIn(r, path, int64(max))
		if err != nil || !utf8.Valid(src) {
			return nil
		}
		if f, ok := Extract(filepath.FromSlash(path), src); ok {
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, &fs.PathError{Op: "scan", Path: dir, Err: err}
	}
	return Build(files, opt), nil
}

// Build ranks files and fills the budget with the best ranked, as many
// as fit; a file that does not fit is skipped for a smaller one. The map
// lists the chosen files in path order, so that it reads like a tree and
// stays the same from one request to the next.
func Build(files []File, opt Options) *Map {
	count := func(s string) int {
		if opt.Counter != nil {
			return opt.Counter.Count(s)
		}
		return (utf8.RuneCountInString(s) + 3) / 4
	}
	budget := opt.Tokens
	if budget == 0 {
		budget = DefaultTokens
	}
	m := &Map{Scanned: len(files)}
	rank := Rank(files, opt.Mentioned, opt.Idents)
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
		m.Sources += files[i].Chars
	}
	sort.SliceStable(order, func(a, b int) bool {
		if rank[order[a]] != rank[order[b]] {
			return rank[order[a]] > rank[order[b]]
		}
		return files[order[a]].Path < files[order[b]].Path
	})
	used := 0
	for _, i := range order {
		if len(files[i].Decls) == 0 {
			continue
		}
		cost := count(Render(files[i : i+1]))
		if budget > 0 && used+cost > budget {
			continue
		}
		used += cost
		m.Files = append(m.Files, files[i])
	}
	sort.Slice(m.Files, func(a, b int) bool { return m.Files[a].Path < m.Files[b].Path })
	m.Text = Render(m.Files)
	m.Tokens = count(m.Text)
	return m
}

// Render writes files as the map shows them: each path, then its
// declarations indented two spaces a level.
//
//	src/main/java/app/OrderService.java
//	  class OrderService
//	    Optional<Order> find(String id)
func Render(files []File) string {
	var sb strings.Builder
	for _, f := range files {
		sb.WriteString(f.Path + "\n")
		for _, d := range f.Decls {
			sb.WriteString(strings.Repeat("  ", d.Depth) + d.Text + "\n")
		}
	}
	return sb.String()
}
