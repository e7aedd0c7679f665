package session

import (
	"context"
	"testing"
)

// fakeResources counts what the state asks of the pipeline's resources.
type fakeResources struct{ idled, closed int }

func (f *fakeResources) Idle(context.Context)  { f.idled++ }
func (f *fakeResources) Close(context.Context) { f.closed++ }

// TestStateReleasesResources: idling and ending the session reach what the
// pipeline holds for it, the end once; what is made after the end is
// closed at once.
func TestStateReleasesResources(t *testing.T) {
	ctx := t.Context()
	st := NewState(&Live{}, nil, nil, DefaultLimits())
	st.Idle(ctx) // nothing held yet: nothing to release

	made := 0
	open := func() Resources { made++; return &fakeResources{} }
	f := st.Resources(open).(*fakeResources)
	if again := st.Resources(open); again != f || made != 1 {
		t.Fatalf("made %d resources for one session", made)
	}
	st.Idle(ctx)
	st.Close(ctx)
	st.Close(ctx)
	if f.idled != 1 || f.closed != 1 {
		t.Fatalf("idled %d, closed %d; want 1, 1", f.idled, f.closed)
	}

	late := NewState(&Live{}, nil, nil, DefaultLimits())
	late.Close(ctx)
	if g := late.Resources(open).(*fakeResources); g.closed != 1 {
		t.Fatalf("resources made after the end: closed %d times, want 1", g.closed)
	}
}

// TestStateWakes: a call on an idle session wakes it once.
func TestStateWakes(t *testing.T) {
	st := NewState(&Live{}, nil, nil, DefaultLimits())
	woke := 0
	st.OnWake(func() { woke++ })
	st.Touch()
	st.Idle(t.Context())
	st.Touch()
	st.Touch()
	if woke != 1 {
		t.Fatalf("woke %d times, want 1", woke)
	}
}
