module github.com/loopagent/loop

go 1.26.0

require (
	github.com/ardanlabs/jinja v1.8.0
	github.com/google/go-cmp v0.7.0
	github.com/ollama/ollama v0.17.4
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/pflag v1.1.0
	github.com/x448/float16 v0.8.4
	golang.org/x/text v0.30.0
)

require golang.org/x/sync v0.20.0 // indirect
