package agent

import (
	"context"

	"github.com/agentscope-go/agentscope/agent/internal/coop"
)

// Yield, called by a tool with the context it was called with, lets the
// other calls of its concurrent batch run before the tool goes on, as
// await asyncio.sleep(0) does in the reference: the call goes to the back
// of the batch's line and Yield returns when its turn comes again. A tool
// that waits (a sleep, I/O, a channel) needs no Yield: the batch sees the
// wait. Outside a concurrent batch Yield returns at once.
func Yield(ctx context.Context) { coop.Yield(ctx) }
