package call

import (
	"context"
	"encoding/json"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

func (r *Runner) askHumanTool() *Tool {
	return &Tool{
		Name:         "ask_human",
		Title:        "Ask the person",
		Description:  "Ask the person at the computer a question and wait for their typed answer. Use it when you need a decision or information only they have.",
		Schema:       json.RawMessage(schemaAskHuman),
		OutputSchema: outAskHuman,
		ReadOnly:     true,
		MakePlan: func(ctx context.Context, c *InFlight) (*Plan, error) {
			st := c.State
			var a struct {
				Question string `json:"question"`
			}
			if err := json.Unmarshal(c.Req.Args, &a); err != nil {
				return nil, errorf("invalid arguments: %v", err)
			}
			plan := &Plan{Action: policy.Action{Tool: policy.ToolAskHuman}, Question: a.Question}
			plan.Run = func(ctx context.Context, c *InFlight) (Output, error) {
				if st.Elicit != nil {
					answer, err := st.Elicit(ctx, a.Question)
					if err == nil {
						return Output{Text: answer, Structured: map[string]any{"answer": answer, "via": "elicitation"}}, nil
					}
					r.deps.Logger.Info("elicitation failed; falling back to the approval card", "err", err)
				}
				d, err := r.ask(ctx, c, approval.Request{
					Kind: approval.KindQuestion, Session: st.Live.ID(), CallID: c.ID, Actor: st.Live.Actor(),
					Tool: "ask_human", Question: a.Question, Reason: "the agent asks you a question",
				})
				if err != nil {
					return Output{}, err
				}
				if !d.Allow {
					msg := "The person did not answer"
					if d.Message != "" {
						msg += ": " + d.Message
					}
					return Output{}, errorf("%s", msg)
				}
				return Output{Text: d.Message, Structured: map[string]any{"answer": d.Message, "via": "gatehouse"}}, nil
			}
			return plan, nil
		},
	}
}

func builtinTools(r *Runner) []*Tool {
	tools := []*Tool{r.runCommandTool()}
	tools = append(tools, r.fileTools()...)
	tools = append(tools, r.fetchURLTool())
	tools = append(tools, r.askHumanTool())
	return tools
}
