package tools_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
)

// autoWithSandbox is a fixture with a (fake) sandbox whose session is in
// auto mode, which lets workspace edits through without a card.
func autoWithSandbox(t *testing.T, tune ...func(*call.Deps)) *calltest.Fixture {
	t.Helper()
	f := calltest.New(t, append([]func(*call.Deps){func(d *call.Deps) { d.Sandbox = &calltest.Sandbox{} }}, tune...)...)
	if err := f.Sessions.SetMode(t.Context(), f.State.Live.ID(), "auto", "human"); err != nil {
		t.Fatal(err)
	}
	return f
}
