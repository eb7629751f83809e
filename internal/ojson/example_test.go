package ojson_test

import (
	"fmt"

	"github.com/agentscope-go/agentscope/internal/ojson"
)

func ExampleParse() {
	v, err := ojson.Parse([]byte(`{"z": 1.50, "a": {"k": "v"}}`))
	if err != nil {
		panic(err)
	}
	o := v.(*ojson.Object)
	o.Set("b", "new")
	o.Delete("a")
	fmt.Println(o.Keys)
	fmt.Println(string(ojson.Append(nil, o)))
	// Output:
	// [z b]
	// {"z":1.50,"b":"new"}
}
