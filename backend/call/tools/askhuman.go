package tools

import (
	"context"
	"encoding/json"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

var (
	schemaAskHuman = json.RawMessage(`{
  "type": "object",
  "properties": {
    "question": {"type": "string", "minLength": 1, "maxLength": 8192}
  },
  "required": ["question"],
  "additionalProperties": false
}`)
	outAskHuman = outputSchema(`
    "answer": {"type": "string"},
    "via": {"type": "string"}`)
)

// askHuman asks the person a question: through the client's own prompt
// (MCP elicitation) where it has one, else on a card.
func askHuman(d Deps) *call.Tool {
	return &call.Tool{
		Name:         "ask_human",
		Title:        "Ask the person",
		Description:  "Ask the person at the computer a question and wait for their typed answer. Use it when you need a decision or information only they have.",
		Schema:       schemaAskHuman,
		OutputSchema: outAskHuman,
		ReadOnly:     true,
		MakePlan: func(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
			var a struct {
				Question string `json:"question"`
			}
			if err := decode(c.Req.Args, &a); err != nil {
				return nil, err
			}
			plan := &call.Plan{Action: policy.Action{Tool: policy.ToolAskHuman}, Question: a.Question}
			plan.Run = func(ctx context.Context, c *call.InFlight) (call.Output, error) {
				return ask(ctx, d, c, a.Question)
			}
			return plan, nil
		},
	}
}

func ask(ctx context.Context, d Deps, c *call.InFlight, question string) (call.Output, error) {
	st := c.State
	if st.Elicit != nil {
		answer, err := st.Elicit(ctx, question)
		if err == nil {
			return call.Output{Text: answer, Structured: map[string]any{"answer": answer, "via": "elicitation"}}, nil
		}
		d.Logger.Info("elicitation failed; falling back to the approval card", "err", err)
	}
	dec, err := d.Person.Ask(ctx, c, approval.Request{
		Kind: approval.KindQuestion, Session: st.Live.ID(), CallID: c.ID, Actor: st.Live.Actor(),
		Tool: "ask_human", Question: question, Reason: "the agent asks you a question",
	})
	if err != nil {
		return call.Output{}, err
	}
	if !dec.Allow {
		msg := "The person did not answer"
		if dec.Message != "" {
			msg += ": " + dec.Message
		}
		return call.Output{}, call.Errorf("%s", msg)
	}
	return call.Output{Text: dec.Message, Structured: map[string]any{"answer": dec.Message, "via": "gatehouse"}}, nil
}
