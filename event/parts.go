package event

import (
	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/internal/wire"
)

// ConfirmResult is a human's answer for one tool call. On approval the
// agent runs ToolCall's name and input (so a client can edit them) and adds
// Rules to the permission engine. Rules nil is the wire null.
type ConfirmResult struct {
	Confirmed bool
	ToolCall  *block.ToolCall
	Rules     []block.PermissionRule
}

// AppendJSON appends the wire JSON.
func (c *ConfirmResult) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"confirmed":`...)
	if c.Confirmed {
		dst = append(dst, "true"...)
	} else {
		dst = append(dst, "false"...)
	}
	dst = append(dst, `,"tool_call":`...)
	if c.ToolCall == nil {
		dst = append(dst, "null"...)
	} else {
		dst = c.ToolCall.AppendJSON(dst)
	}
	dst = append(dst, `,"rules":`...)
	if c.Rules == nil {
		dst = append(dst, "null"...)
	} else {
		dst = block.AppendRules(dst, c.Rules)
	}
	return append(dst, '}')
}

func appendConfirms(dst []byte, cs []ConfirmResult) []byte {
	dst = append(dst, '[')
	for i := range cs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = cs[i].AppendJSON(dst)
	}
	return append(dst, ']')
}

func decodeConfirms(o *wire.Object, name string) []ConfirmResult {
	raws := o.Array(name, true)
	out := make([]ConfirmResult, 0, len(raws))
	for i, r := range raws {
		co, err := wire.Borrow("confirm result", r)
		if err != nil {
			o.Fail(name, "element %d: %v", i, err)
			return nil
		}
		defer co.Release()
		var c ConfirmResult
		co.Bool("confirmed", &c.Confirmed, true)
		call, ok := co.Raw("tool_call")
		if !ok || call == nil {
			co.Fail("tool_call", "required")
		}
		rules := co.Array("rules", false)
		if err := co.Err(); err != nil {
			o.Fail(name, "element %d: %v", i, err)
			return nil
		}
		c.ToolCall = new(block.ToolCall)
		if err := c.ToolCall.UnmarshalJSON(call); err != nil {
			o.Fail(name, "element %d: tool_call: %v", i, err)
			return nil
		}
		if rules != nil {
			c.Rules = make([]block.PermissionRule, len(rules))
			for j, rr := range rules {
				if err := c.Rules[j].UnmarshalJSON(rr); err != nil {
					o.Fail(name, "element %d: rules[%d]: %v", i, j, err)
					return nil
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func appendResults(dst []byte, rs []*block.ToolResult) []byte {
	dst = append(dst, '[')
	for i, r := range rs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if r == nil {
			dst = append(dst, "null"...)
			continue
		}
		dst = r.AppendJSON(dst)
	}
	return append(dst, ']')
}

func decodeResults(o *wire.Object, name string) []*block.ToolResult {
	raws := o.Array(name, true)
	out := make([]*block.ToolResult, 0, len(raws))
	for i, r := range raws {
		res := new(block.ToolResult)
		if err := res.UnmarshalJSON(r); err != nil {
			o.Fail(name, "element %d: %v", i, err)
			return nil
		}
		out = append(out, res)
	}
	return out
}

func appendErrorInfo(dst []byte, e *ErrorInfo) []byte {
	if e == nil {
		return append(dst, "null"...)
	}
	return e.AppendJSON(dst)
}

func decodeErrorInfo(o *wire.Object, name string) *ErrorInfo {
	raw, ok := o.Raw(name)
	if !ok || raw == nil {
		return nil
	}
	e := new(ErrorInfo)
	if err := e.UnmarshalJSON(raw); err != nil {
		o.Fail(name, "%v", err)
		return nil
	}
	return e
}

func decodeBody(o *wire.Object, name string, p *block.Body) {
	raw, ok := o.Value(name)
	if !ok {
		o.Fail(name, "required")
		return
	}
	if err := p.UnmarshalJSON(raw); err != nil {
		o.Fail(name, "%v", err)
	}
}

func or[T ~string](v, def T) T {
	if v == "" {
		return def
	}
	return v
}
