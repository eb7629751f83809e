package block_test

import (
	"fmt"

	"github.com/agentscope-go/agentscope/block"
)

// A nullable string keeps null and "" apart: a permission rule for a whole
// tool has rule_content null, while the reference stores "" for a generic
// tool, and each is written back as it came.
func ExampleNullString() {
	whole := block.PermissionRule{ToolName: "Bash", Behavior: block.Allow, Source: "session"}
	generic := whole
	generic.RuleContent = block.Some("")
	fmt.Println(string(whole.AppendJSON(nil)))
	fmt.Println(string(generic.AppendJSON(nil)))
	fmt.Printf("%q %q\n", whole.RuleContent.Or("None"), generic.RuleContent.Or("None"))
	// Output:
	// {"tool_name":"Bash","rule_content":null,"behavior":"allow","source":"session"}
	// {"tool_name":"Bash","rule_content":"","behavior":"allow","source":"session"}
	// "None" ""
}
