package repomap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
)

var samples = []struct {
	name, path, src string
}{
	{"go", "order/order.go", `package order

import "errors"

// ErrEmpty is returned for an order with no lines.
var ErrEmpty = errors.New("empty order")

const maxLines = 100

type Order struct {
	Lines []Line
}

type Line struct{ Cents int64 }

type Cents int64

type Set[T comparable] map[T]struct{}

type Totaler interface {
	Total() Cents
}

func New(lines ...Line) (*Order, error) {
	if len(lines) == 0 {
		return nil, ErrEmpty
	}
	return &Order{Lines: lines}, nil
}

func (o *Order) Total() Cents {
	var sum Cents
	for _, l := range o.Lines {
		sum += Cents(l.Cents)
	}
	return sum
}

func round(c Cents,
	to int) Cents { return c }
`},
	{"python", "shop/order.py", `import math

class Order(Base):
    def __init__(self, lines):
        self.lines = lines

    async def total(self) -> int:
        return sum(l.cents for l in self.lines)

def parse_order(text):
    return Order([])

_cache = {}
`},
	{"typescript", "src/order.ts", `export interface Line { cents: number }

export type Cents = number;

export class Order {
  constructor(private lines: Line[]) {}

  total(): Cents {
    if (this.lines.length === 0) {
      return 0;
    }
    return this.lines.reduce((a, l) => a + l.cents, 0);
  }

  static async load(id: string): Promise<Order> {
    return new Order([]);
  }
}

export function parseOrder(text: string): Order {
  return new Order([]);
}

export const totalOf = (o: Order): Cents => o.total();
`},
	{"rust", "src/order.rs", `pub struct Order {
    lines: Vec<Line>,
}

pub enum Status { Open, Paid }

pub trait Total {
    fn total(&self) -> i64;
}

impl Total for Order {
    fn total(&self) -> i64 {
        self.lines.iter().map(|l| l.cents).sum()
    }
}

pub fn parse_order(text: &str) -> Result<Order, Error> {
    todo!()
}

pub(crate) async fn load<T: Into<String>>(id: T) -> Order { todo!() }
`},
	{"c", "src/order.h", `#ifndef ORDER_H
#define ORDER_H

typedef struct order {
    long cents;
} order_t;

enum status { OPEN, PAID };

long order_total(const order_t *o);
static inline int is_open(enum status s) { return s == OPEN; }

char *order_name(order_t *o)
{
    if (o == NULL) return NULL;
    return "x";
}
#endif
`},
	{"java", "src/Shop.java", `package shop;

@Service
public class Shop implements Store {
    public Shop(Repo repo) { this.repo = repo; }

    public static <T> List<T> all() { return null; }

    protected int count() {
        if (x) {
            return 1;
        } else if (y) {
            return 2;
        }
        return 0;
    }

    public enum Kind { A, B }

    String[] names(int max) throws IOException;
}
`},
}

// TestExtract pins each language's extractor on a small file. Each
// golden was read against its source by hand: what is listed, and what
// is left out on purpose (private Java methods, constructors, control
// statements that look like calls).
func TestExtract(t *testing.T) {
	for _, s := range samples {
		t.Run(s.name, func(t *testing.T) {
			f, ok := Extract(s.path, []byte(s.src))
			if !ok {
				t.Fatalf("Extract(%s): not read", s.path)
			}
			golden.Check(t, s.name+".txt", Render([]File{f}))
		})
	}
}

// repo is a small Go repository: core.go defines Parse and Token, used by
// three files; leaf.go defines an identifier nobody uses.
var repo = map[string]string{
	"core.go":   "package p\n\ntype Token struct{}\n\nfunc Parse(s string) []Token { return nil }\n",
	"a.go":      "package p\n\nfunc A() { Parse(\"a\") }\n",
	"b.go":      "package p\n\nfunc B() []Token { return Parse(\"b\") }\n",
	"c.go":      "package p\n\nfunc C() { _ = Parse(\"c\"); var t Token; _ = t }\n",
	"leaf.go":   "package p\n\nfunc leafHelperThing() {}\n",
	"caller.go": "package p\n\nfunc Caller() { leafHelperThing() }\n",
}

func repoFiles(t *testing.T) []File {
	t.Helper()
	var files []File
	for _, p := range []string{"a.go", "b.go", "c.go", "caller.go", "core.go", "leaf.go"} {
		f, _ := Extract(p, []byte(repo[p]))
		files = append(files, f)
	}
	return files
}

func TestRank(t *testing.T) {
	tests := []struct {
		name      string
		mentioned []string
		idents    []string
		first     string
	}{
		{name: "most used first", first: "core.go"},
		{name: "what the conversation's file uses", mentioned: []string{"caller.go"}, first: "leaf.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := repoFiles(t)
			rank := Rank(files, tt.mentioned, tt.idents)
			best := -1 // the best ranked file outside the conversation
			for i := range rank {
				if !slices.Contains(tt.mentioned, files[i].Path) && (best < 0 || rank[i] > rank[best]) {
					best = i
				}
			}
			if files[best].Path != tt.first {
				t.Errorf("Rank ranks %s first (%v), want %s", files[best].Path, rank, tt.first)
			}
		})
	}
}

func TestBuildBudget(t *testing.T) {
	files := repoFiles(t)
	all := Build(files, Options{Tokens: -1})
	m := Build(files, Options{Tokens: 20})
	if len(all.Files) != 6 || len(m.Files) == 0 || len(m.Files) >= 6 || m.Tokens > 20 {
		t.Fatalf("Build(20 tokens) = %d files, %d tokens; all: %d files", len(m.Files), m.Tokens, len(all.Files))
	}
	if m.Files[0].Path != "core.go" && !strings.Contains(m.Text, "core.go") {
		t.Errorf("Build(20 tokens) left out the most used file:\n%s", m.Text)
	}
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	for p, src := range map[string]string{
		"main.go": "package main\n\nfunc main() {}\n", "lib/x.py": "def x():\n    pass\n",
		".git/hooks/h.go": "package h\nfunc H() {}\n", "node_modules/m/i.js": "function m() {}\n",
		"notes.txt": "func no() {}", "big.go": "package big\n\nfunc Big() {}\n" + strings.Repeat("// x\n", 100),
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "lib"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	m, err := Scan(dir, Options{MaxFileBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	if want := "lib/x.py\n  def x()\nmain.go\n  func main()\n"; m.Text != want || m.Scanned != 2 {
		t.Errorf("Scan = %d files:\n%s\nwant:\n%s", m.Scanned, m.Text, want)
	}
	if _, err := Scan(filepath.Join(dir, "missing"), Options{}); err == nil {
		t.Error("Scan(missing dir) = nil error")
	}
}

// FuzzExtract: no extractor panics, and every declaration has a header
// and an offset inside the source.
func FuzzExtract(f *testing.F) {
	for _, s := range samples {
		f.Add(s.path, s.src)
	}
	for path, src := range seedJava {
		f.Add(path, src)
	}
	f.Fuzz(func(t *testing.T, path, src string) {
		file, ok := Extract(path, []byte(src))
		if !ok {
			return
		}
		for _, d := range file.Decls {
			if strings.TrimSpace(d.Text) == "" || d.Offset < 0 || d.Offset > len(src) || d.Depth < 1 {
				t.Fatalf("Extract(%q, %q): bad declaration %+v", path, src, d)
			}
		}
		_ = Render([]File{file})
	})
}
