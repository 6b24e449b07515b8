// Package validate checks a model's reply before any of its calls runs:
// the checklist a careful client of a chat server goes through.
//
//	v, err := validate.New(tools) // compiles each tool's JSON Schema once
//	for _, viol := range v.Validate(validate.Reply{FinishReason: "stop", Calls: calls}) {
//		fmt.Println(viol) // "call 2: missing required argument 'path'"
//	}
//
// A reply cut off by the token limit (finish reason "length"), a call
// without an id or with the id of another call, a tool that was not
// offered, arguments that are not a JSON object, a required argument
// missing, an argument the schema does not declare and any other schema
// violation are each a Violation with its Check, so that a caller can
// retry, repair or count it. History checks a conversation a user sends:
// every result answers a call, and no id is used twice.
//
// The package is pure Go.
package validate
