module github.com/agentscope-go/agentscope

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.uber.org/goleak v1.3.0
	mvdan.cc/sh/v3 v3.14.1
	pgregory.net/rapid v1.3.0
)

require golang.org/x/text v0.14.0 // indirect
