package stamp_test

import (
	"fmt"

	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/stamp"
)

// A Fixed source makes everything built with it deterministic: ids count
// up from 1 and every timestamp is the same, so a test can compare JSON
// byte for byte.
func ExampleFixed() {
	src := &stamp.Fixed{Time: "2026-08-22T09:14:04.512348"}
	fmt.Println(src.NewID())
	fmt.Println(src.NewID())
	fmt.Println(src.Now())

	m := message.UserText("user", "hi", message.WithStamp(&stamp.Fixed{Time: "2026-08-22T09:14:04"}))
	fmt.Println(m.ID, m.Content[0].BlockID())
	// Output:
	// 00000000000000000000000000000001
	// 00000000000000000000000000000002
	// 2026-08-22T09:14:04.512348
	// 00000000000000000000000000000002 00000000000000000000000000000001
}
