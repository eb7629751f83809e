// Package offload keeps what an agent's context sheds in a directory the
// model can read back with its file tools: the part of a tool result cut
// at the tool-result limit, the messages a compression replaced by its
// summary, and images evicted beyond the image limit. [Dir] implements
// agent.Offloader with the layout of the reference's workspace:
//
//	<root>/sessions/<session id>/tool_result-<call id>.txt
//	<root>/sessions/<session id>/context.jsonl
//	<root>/data/<sha256 of the base64>.<ext>
package offload
