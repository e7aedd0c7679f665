package call

import (
	"context"
	"fmt"
)

// PanicIn makes the named tool panic when prepared: a fault injected by
// tests of the real daemon (GATEHOUSE_FAULT_PANIC_TOOL) to watch a panic
// become a tool error on every path. Never set in normal use.
func (r *Runner) PanicIn(tool string) error {
	t, ok := r.tools[tool]
	if !ok {
		return fmt.Errorf("no tool %q to inject a panic into", tool)
	}
	t.MakePlan = func(_ context.Context, _ *InFlight) (*Plan, error) { panic("injected fault in " + tool) }
	return nil
}
