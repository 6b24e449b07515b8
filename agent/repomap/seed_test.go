package repomap

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedJava are the three files of seed 002 Example 7.
var seedJava = map[string]string{
	"src/main/java/app/Order.java": "package app;\n\npublic record Order(String id, long cents) {\n}\n",
	"src/main/java/app/OrderService.java": `package app;

import java.util.*;

public final class OrderService {
    private final Map<String, Order> orders = new HashMap<>();

    public Optional<Order> find(String id) {
        return Optional.ofNullable(orders.get(id));
    }

    public List<Order> findAll() {
        return new ArrayList<>(orders.values());
    }

    private void audit(String msg) {
        System.out.println(msg);
    }
}
`,
	"src/main/java/app/OrderRepository.java": `package app;

public interface OrderRepository {
    Order load(String id) throws java.io.IOException;
}
`,
}

// TestSeedRepoMap: seed 002 Example 7, the map of three Java files with no
// budget, and its size against the sources' at 4 characters a token.
func TestSeedRepoMap(t *testing.T) {
	var files []File
	for path, src := range seedJava {
		f, ok := Extract(path, []byte(src))
		if !ok {
			t.Fatalf("Extract(%s): language not read", path)
		}
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	m := Build(files, Options{Tokens: -1})
	got := m.Text + fmt.Sprintf("map: %d chars (~%d tokens), sources: %d chars (~%d tokens)\n",
		len(m.Text), m.Tokens, m.Sources, (m.Sources+3)/4)
	want, err := os.ReadFile(filepath.Join("testdata", t.Name(), "seed002_example07.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("seed 002 Example 7 (read-only) mismatch (-seed +got):\n%s", diff)
	}
}
