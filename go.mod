module github.com/agentscope-go/agentscope

go 1.26
