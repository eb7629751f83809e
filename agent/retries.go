package agent

import (
	"errors"

	"github.com/agentscope-go/agentscope/model"
)

// adapterRetries is how many requests beyond one a failed model call made:
// an adapter retries on its own before it gives up, and
// ModelCallError.Attempts counts every request, so that "failed after N
// attempt(s)" is what happened on the wire.
func adapterRetries(err error) int {
	var me *model.Error
	if errors.As(err, &me) && me.Attempts > 1 {
		return me.Attempts - 1
	}
	return 0
}
