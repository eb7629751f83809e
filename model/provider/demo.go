package provider

import (
	"github.com/agentscope-go/agentscope/demo"
	"github.com/agentscope-go/agentscope/model"
)

// defaultModels names the model a bare scheme stands for ("demo" is
// "demo:demo"); schemes of real providers have none, since guessing a
// paid model for the user would be wrong.
var defaultModels = map[string]string{"demo": demo.Name}

func init() {
	// The keyless demo model: no API key, no network.
	Register("demo", func(s Spec) (model.ChatModel, error) { return demo.New(), nil })
}
