package mcp

import (
	"bytes"
	"encoding/json"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentscope-go/agentscope/block"
)

// convertContent turns MCP content into tool-result blocks, as the
// reference's MCPTool does, plus what it leaves out: embedded blobs become
// data blocks and resource links a text naming the link.
func convertContent(cs []sdk.Content, log *slog.Logger) []block.Block {
	out := make([]block.Block, 0, len(cs))
	for _, c := range cs {
		switch v := c.(type) {
		case *sdk.TextContent:
			out = append(out, block.NewText(v.Text))
		case *sdk.ImageContent:
			out = append(out, dataBlock(v.MIMEType, v.Data))
		case *sdk.AudioContent:
			out = append(out, dataBlock(v.MIMEType, v.Data))
		case *sdk.EmbeddedResource:
			r := v.Resource
			switch {
			case r == nil:
				log.Warn("mcp: skipping an embedded resource without contents")
			case r.Blob != nil:
				out = append(out, dataBlock(r.MIMEType, r.Blob))
			default:
				out = append(out, block.NewText(resourceJSON(r)))
			}
		case *sdk.ResourceLink:
			s := "Resource link: " + v.URI
			if v.Name != "" {
				s += " (" + v.Name + ")"
			}
			if v.MIMEType != "" {
				s += " [" + v.MIMEType + "]"
			}
			if v.Description != "" {
				s += ": " + v.Description
			}
			out = append(out, block.NewText(s))
		default:
			log.Warn("mcp: skipping unsupported content", "type", slog.AnyValue(c))
		}
	}
	return out
}

func dataBlock(mediaType string, data []byte) *block.Data {
	return &block.Data{Source: block.Base64Bytes(mediaType, data)}
}

// resourceJSON renders an embedded text resource as the reference does
// (pydantic's model_dump_json(indent=2) of TextResourceContents).
func resourceJSON(r *sdk.ResourceContents) string {
	var mime any
	if r.MIMEType != "" {
		mime = r.MIMEType
	}
	var meta any
	if len(r.Meta) > 0 {
		meta = map[string]any(r.Meta)
	}
	// An ordered struct: the reference's field order.
	v := struct {
		URI      string `json:"uri"`
		MIMEType any    `json:"mimeType"`
		Meta     any    `json:"meta"`
		Text     string `json:"text"`
	}{r.URI, mime, meta, r.Text}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}
