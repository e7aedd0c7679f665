package export

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// OCSFVersion is the schema version each line declares.
const OCSFVersion = "1.3.0"

// Class is an OCSF event class the mapping uses.
type Class int

// The classes, by uid (category*1000 + class). The README's Export section
// is the table of which kinds go where, and why.
const (
	ClassBase                 Class = 0    // anything below
	ClassProcessActivity      Class = 1007 // tool, hook, exec, run: a call Gatehouse runs for the agent
	ClassAuthentication       Class = 3002 // session.start / session.end: the agent logs on and off
	ClassAuthorizeSession     Class = 3003 // approval, policy: privileges granted (or not) to the agent's session
	ClassNetworkActivity      Class = 4001 // network: a command's connection through the egress proxy
	ClassApplicationLifecycle Class = 6002 // system: Gatehouse starts, stops, is paused or killed
)

// Category is the class's OCSF category uid.
func (c Class) Category() int { return int(c) / 1000 }

// Name is the class's OCSF caption.
func (c Class) Name() string {
	switch c {
	case ClassProcessActivity:
		return "Process Activity"
	case ClassAuthentication:
		return "Authentication"
	case ClassAuthorizeSession:
		return "Authorize Session"
	case ClassNetworkActivity:
		return "Network Activity"
	case ClassApplicationLifecycle:
		return "Application Lifecycle"
	}
	return "Base Event"
}

// Required are the attributes OCSF requires of the class (with the base
// event's), which every line of that class carries; tests check them.
func (c Class) Required() []string {
	base := []string{"activity_id", "category_uid", "class_uid", "metadata", "severity_id", "time", "type_uid"}
	switch c {
	case ClassProcessActivity:
		return append(base, "actor", "device", "process")
	case ClassAuthentication, ClassAuthorizeSession:
		return append(base, "user")
	case ClassNetworkActivity:
		// At least one endpoint; both are always written.
		return append(base, "dst_endpoint", "src_endpoint")
	case ClassApplicationLifecycle:
		return append(base, "app")
	}
	return base
}

// ClassOf maps an audit kind to its OCSF class and activity.
func ClassOf(kind string) (Class, int) {
	family, rest, _ := strings.Cut(kind, ".")
	switch family {
	case "tool", "hook", "exec", "run":
		switch rest {
		case "call", "started":
			return ClassProcessActivity, 1 // Launch
		case "result", "finished", "ended", "cleared":
			return ClassProcessActivity, 2 // Terminate
		}
		return ClassProcessActivity, 99
	case "session":
		switch rest {
		case "start":
			return ClassAuthentication, 1 // Logon
		case "end":
			return ClassAuthentication, 2 // Logoff
		}
	case "approval", "policy":
		if rest == "decided" || rest == "rule_added" {
			return ClassAuthorizeSession, 1 // Assign Privileges
		}
		return ClassAuthorizeSession, 99
	case "network":
		if rest == "connection" {
			return ClassNetworkActivity, 6 // Traffic: one finished connection
		}
		return ClassNetworkActivity, 99
	case "system":
		switch rest {
		case "start":
			return ClassApplicationLifecycle, 3 // Start
		case "stop":
			return ClassApplicationLifecycle, 4 // Stop
		}
		return ClassApplicationLifecycle, 99
	}
	return ClassBase, 99
}

// payloadFacts are the few payload fields the mapping lifts into OCSF
// attributes; the whole payload goes along under unmapped.
type payloadFacts struct {
	Argv    []string `json:"argv"`
	Domain  string   `json:"domain"`
	Port    int      `json:"port"`
	Verdict string   `json:"verdict"`
	Refused string   `json:"refused"`
	Rule    any      `json:"rule"`
}

type ocsfProduct struct {
	Name    string `json:"name"`
	Vendor  string `json:"vendor_name"`
	Version string `json:"version,omitempty"`
}

type ocsfMetadata struct {
	Version       string      `json:"version"`
	Product       ocsfProduct `json:"product"`
	UID           string      `json:"uid"`
	Sequence      int64       `json:"sequence"`
	CorrelationID string      `json:"correlation_uid,omitempty"`
	LogName       string      `json:"log_name"`
	EventCode     string      `json:"event_code"`
}

type ocsfUser struct {
	Name   string `json:"name"`
	TypeID int    `json:"type_id"` // 99 Other: an agent or Gatehouse itself; 1 User: the person
	Type   string `json:"type,omitempty"`
}

type ocsfSession struct {
	UID string `json:"uid,omitempty"`
}

type ocsfEndpoint struct {
	Hostname string `json:"hostname,omitempty"`
	Port     int    `json:"port,omitempty"`
}

// ocsfEvent is one line. Fields a class does not use are left out.
type ocsfEvent struct {
	ActivityID   int             `json:"activity_id"`
	CategoryUID  int             `json:"category_uid"`
	CategoryName string          `json:"category_name,omitempty"`
	ClassUID     int             `json:"class_uid"`
	ClassName    string          `json:"class_name"`
	TypeUID      int             `json:"type_uid"`
	SeverityID   int             `json:"severity_id"`
	StatusID     int             `json:"status_id,omitempty"`
	Time         int64           `json:"time"` // ms since the epoch
	Message      string          `json:"message"`
	Metadata     ocsfMetadata    `json:"metadata"`
	Actor        map[string]any  `json:"actor,omitempty"`
	Device       map[string]any  `json:"device,omitempty"`
	Process      map[string]any  `json:"process,omitempty"`
	User         *ocsfUser       `json:"user,omitempty"`
	Session      *ocsfSession    `json:"session,omitempty"`
	Privileges   []string        `json:"privileges,omitempty"`
	SrcEndpoint  *ocsfEndpoint   `json:"src_endpoint,omitempty"`
	DstEndpoint  *ocsfEndpoint   `json:"dst_endpoint,omitempty"`
	App          *ocsfProduct    `json:"app,omitempty"`
	Unmapped     json.RawMessage `json:"unmapped"`
}

var categoryNames = map[int]string{1: "System Activity", 3: "Identity & Access Management", 4: "Network Activity", 6: "Application Activity"}

// userOf names who did it: the person, Gatehouse (policy, system) or an
// agent ("agent:NAME").
func userOf(actor string) *ocsfUser {
	if actor == audit.ActorHuman {
		return &ocsfUser{Name: actor, TypeID: 1, Type: "User"}
	}
	return &ocsfUser{Name: actor, TypeID: 99, Type: "Other"}
}

// OCSFRecord maps one audit event to one OCSF line (without the newline).
func OCSFRecord(e *audit.Event, version, host string) ([]byte, error) {
	class, activity := ClassOf(e.Kind)
	var p payloadFacts
	_ = json.Unmarshal(e.Payload, &p) // a payload without these fields maps without them
	o := ocsfEvent{
		ActivityID: activity, CategoryUID: class.Category(), CategoryName: categoryNames[class.Category()],
		ClassUID: int(class), ClassName: class.Name(), TypeUID: int(class)*100 + activity,
		SeverityID: 1, Time: e.Time.UnixMilli(), Message: e.Kind,
		Metadata: ocsfMetadata{Version: OCSFVersion, Product: ocsfProduct{Name: "Gatehouse", Vendor: "Gatehouse", Version: version},
			UID: e.Hash, Sequence: e.Seq, CorrelationID: e.Session, LogName: "gatehouse.audit", EventCode: e.Kind},
	}
	if warning(e.Kind) {
		o.SeverityID, o.StatusID = 3, 2 // Medium, Failure
	}
	var sess *ocsfSession
	if e.Session != "" {
		sess = &ocsfSession{UID: e.Session}
	}
	switch class {
	case ClassProcessActivity:
		tool, _ := toolOf(e)
		proc := map[string]any{"name": tool}
		if len(p.Argv) > 0 {
			proc["cmd_line"] = strings.Join(p.Argv, " ")
		}
		if e.CallID != "" {
			proc["uid"] = e.CallID
		}
		o.Process = proc
		o.Actor = map[string]any{"user": userOf(e.Actor), "app_name": "Gatehouse"}
		if sess != nil {
			o.Actor["session"] = sess
		}
		o.Device = map[string]any{"hostname": host, "type_id": 0}
	case ClassAuthentication, ClassAuthorizeSession:
		o.User, o.Session = userOf(e.Actor), sess
		if r, ok := p.Rule.(string); ok && r != "" {
			o.Privileges = []string{r}
		}
		if p.Verdict == "deny" {
			o.StatusID = 2
		}
	case ClassNetworkActivity:
		o.SrcEndpoint = &ocsfEndpoint{Hostname: host}
		o.DstEndpoint = &ocsfEndpoint{Hostname: p.Domain, Port: p.Port}
		if p.Refused != "" || p.Verdict == "deny" {
			o.StatusID = 2
		}
	case ClassApplicationLifecycle:
		o.App = &ocsfProduct{Name: "Gatehouse", Vendor: "Gatehouse", Version: version}
	}
	un := make([]byte, 0, len(e.Payload)+256)
	un = append(un, `{"gatehouse.actor":`...)
	un = audit.AppendJSONString(un, e.Actor)
	un = append(un, `,"gatehouse.call_id":`...)
	un = audit.AppendJSONString(un, e.CallID)
	un = append(un, `,"gatehouse.hash":`...)
	un = audit.AppendJSONString(un, e.Hash)
	un = append(un, `,"gatehouse.kind":`...)
	un = audit.AppendJSONString(un, e.Kind)
	un = append(un, `,"gatehouse.prev_hash":`...)
	un = audit.AppendJSONString(un, e.PrevHash)
	un = append(un, `,"gatehouse.seq":`...)
	un = fmt.Appendf(un, "%d", e.Seq)
	un = append(un, `,"gatehouse.session":`...)
	un = audit.AppendJSONString(un, e.Session)
	un = append(un, `,"payload":`...)
	if len(e.Payload) == 0 {
		un = append(un, `{}`...)
	} else {
		un = append(un, e.Payload...) // as stored: already redacted
	}
	o.Unmapped = append(un, '}')
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encode OCSF event %d: %w", e.Seq, err)
	}
	return b, nil
}

// OCSFFile appends OCSF JSON lines to a file, fsynced before the cursor
// moves. The file is opened for each batch, so a rotated file is followed.
type OCSFFile struct {
	path    string
	version string
	host    string
}

// NewOCSFFile is a sink writing to path (created 0600 when missing).
func NewOCSFFile(path, version string) *OCSFFile {
	host, _ := os.Hostname()
	return &OCSFFile{path: path, version: version, host: host}
}

func (f *OCSFFile) Name() SinkName { return SinkOCSF }
func (f *OCSFFile) Target() string { return f.path }

// Send appends the batch. A line cut short by a full disk is left behind
// (and the batch written again after it): readers skip a line that does not
// parse, and each line names its seq.
func (f *OCSFFile) Send(ctx context.Context, events []audit.Event) error {
	buf := make([]byte, 0, len(events)*1024)
	for i := range events {
		line, err := OCSFRecord(&events[i], f.version, f.host)
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	file, err := os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return db.Classify(fmt.Errorf("open the OCSF file %s: %w", f.path, err))
	}
	if _, err := file.Write(buf); err != nil {
		file.Close()
		return db.Classify(fmt.Errorf("write the OCSF file %s: %w", f.path, err))
	}
	if err := file.Sync(); err != nil {
		file.Close()
		return db.Classify(fmt.Errorf("sync the OCSF file %s: %w", f.path, err))
	}
	if err := file.Close(); err != nil {
		return db.Classify(fmt.Errorf("close the OCSF file %s: %w", f.path, err))
	}
	return nil
}
