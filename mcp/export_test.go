package mcp

// ForgetTools drops the client's tools, so the next listing builds every
// tool anew, as the first one at Connect does (for the cold listing
// benchmark).
func (c *Client) ForgetTools() {
	c.mu.Lock()
	c.tools = nil
	c.mu.Unlock()
}

// Mounts counts the toolkits c still keeps current.
func (c *Client) Mounts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.liveMounts())
}
