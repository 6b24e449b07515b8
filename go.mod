module github.com/loopagent/loop

go 1.26

require (
	github.com/ollama/ollama v0.17.4
	github.com/spf13/pflag v1.0.5
	github.com/x448/float16 v0.8.4
)

require golang.org/x/sync v0.17.0 // indirect
