package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// logsPath is where OTLP/HTTP receivers take logs.
const logsPath = "/v1/logs"

// ErrCredentialsInURL refuses an endpoint that carries a secret in its URL,
// where it would be shown on the status screen and in logs.
var ErrCredentialsInURL = errors.New("the OTLP endpoint carries credentials in its URL; put credentials in otlp_headers")

// ParseEndpoint checks an otlp_endpoint ("http://HOST:PORT", optionally a
// path) and returns the URL logs are posted to.
func ParseEndpoint(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("the OTLP endpoint %q is not a URL: %w", s, err)
	}
	if u.User != nil {
		return "", ErrCredentialsInURL
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("the OTLP endpoint has a query or fragment; give http://HOST:PORT and put credentials in otlp_headers")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("the OTLP endpoint %q must start with http:// or https://", s)
	}
	if u.Host == "" {
		return "", fmt.Errorf("the OTLP endpoint %q names no host; give http://HOST:PORT", s)
	}
	path := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(path, logsPath) {
		path += logsPath
	}
	u.Path = path
	return u.String(), nil
}

// CheckHeaders refuses header names and values that cannot go on the wire.
func CheckHeaders(h map[string]string) error {
	for k, v := range h {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) }) {
			return fmt.Errorf("otlp_headers: %q is not a valid header name", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			// The value is a secret: name the header only.
			return fmt.Errorf("otlp_headers: the value of %q has a line break", k)
		}
	}
	return nil
}

// OTLP posts audit events to an OpenTelemetry collector as OTLP/HTTP logs,
// JSON-encoded (which every collector's OTLP receiver takes, and which
// keeps the protobuf stack out of the daemon).
type OTLP struct {
	url     string
	headers map[string]string // the collector's auth; never logged
	client  *http.Client
	version string
	host    string
}

// OTLPOptions configure an OTLP sink.
type OTLPOptions struct {
	Endpoint string            // as in the config; checked with ParseEndpoint
	Headers  map[string]string // sent with every request
	Timeout  time.Duration     // per request; default 10 s
	Version  string            // Gatehouse's version, a resource attribute
}

// NewOTLP builds the sink; the endpoint and headers are checked again so a
// caller that skipped the config's validation cannot leak a secret.
func NewOTLP(o OTLPOptions) (*OTLP, error) {
	u, err := ParseEndpoint(o.Endpoint)
	if err != nil {
		return nil, err
	}
	if err := CheckHeaders(o.Headers); err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	host, _ := os.Hostname()
	return &OTLP{url: u, headers: o.Headers, version: o.Version, host: host,
		client: &http.Client{Timeout: o.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
			// A redirect would resend the auth headers to another place.
			return http.ErrUseLastResponse
		}}}, nil
}

func (o *OTLP) Name() SinkName { return SinkOTLP }
func (o *OTLP) Target() string { return o.url }

// errTooLarge asks the runner to send smaller batches.
var errTooLarge = errors.New("the collector refused the batch as too large (413)")

// Send posts one batch as one request.
func (o *OTLP) Send(ctx context.Context, events []audit.Event) error {
	body := o.encode(events)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build the OTLP request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "gatehouse/"+o.version)
	for k, v := range o.headers {
		req.Header.Set(k, v)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		// url.Error names the URL, which holds no credentials (refused).
		return fmt.Errorf("the collector did not answer: %w", err)
	}
	defer resp.Body.Close()
	// Read a little of the answer for the error, and drain it so the
	// connection is reused; a garbage body on a 2xx is still a delivery.
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusRequestEntityTooLarge:
		return errTooLarge
	}
	return fmt.Errorf("the collector answered %s: %q", resp.Status, o.scrub(strings.TrimSpace(string(snippet))))
}

// scrub hides our own header values in what the collector said: a proxy
// that echoes the request would otherwise put the collector's key in the
// status and the log.
func (o *OTLP) scrub(s string) string {
	for _, v := range o.headers {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "[REDACTED]")
		}
	}
	return s
}

// encode writes the OTLP JSON (ExportLogsServiceRequest) by hand: it runs
// for every batch, and the shape is small and fixed. 64-bit integers are
// strings, as the protobuf JSON mapping says.
func (o *OTLP) encode(events []audit.Event) []byte {
	b := make([]byte, 0, 512+len(events)*768)
	b = append(b, `{"resourceLogs":[{"resource":{"attributes":[`...)
	b = strAttr(b, "service.name", "gatehouse", false)
	b = strAttr(b, "service.version", o.version, true)
	b = strAttr(b, "host.name", o.host, true)
	b = append(b, `]},"scopeLogs":[{"scope":{"name":"gatehouse.audit"},"logRecords":[`...)
	now := strconv.FormatInt(time.Now().UnixNano(), 10)
	for i := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = o.record(b, &events[i], now)
	}
	return append(b, `]}]}]}`...)
}

func (o *OTLP) record(b []byte, e *audit.Event, now string) []byte {
	sev, sevText := "9", "INFO"
	if warning(e.Kind) {
		sev, sevText = "13", "WARN"
	}
	b = append(b, `{"timeUnixNano":"`...)
	b = strconv.AppendInt(b, e.Time.UnixNano(), 10)
	b = append(b, `","observedTimeUnixNano":"`...)
	b = append(b, now...)
	b = append(b, `","severityNumber":`...)
	b = append(b, sev...)
	b = append(b, `,"severityText":"`...)
	b = append(b, sevText...)
	b = append(b, `","eventName":`...)
	b = audit.AppendJSONString(b, e.Kind)
	// The payload as stored (canonical JSON, redacted on its way in).
	b = append(b, `,"body":{"stringValue":`...)
	b = audit.AppendJSONString(b, string(e.Payload))
	b = append(b, `},"attributes":[`...)
	b = intAttr(b, "gatehouse.seq", e.Seq)
	b = strAttr(b, "gatehouse.hash", e.Hash, true)
	b = strAttr(b, "gatehouse.prev_hash", e.PrevHash, true)
	b = strAttr(b, "gatehouse.session", e.Session, true)
	b = strAttr(b, "gatehouse.kind", e.Kind, true)
	b = strAttr(b, "gatehouse.actor", e.Actor, true)
	if e.CallID != "" {
		b = strAttr(b, "gatehouse.call_id", e.CallID, true)
	}
	if tool, ok := toolOf(e); ok {
		b = strAttr(b, "gen_ai.operation.name", "execute_tool", true)
		b = strAttr(b, "gen_ai.tool.name", tool, true)
		if e.CallID != "" {
			b = strAttr(b, "gen_ai.tool.call.id", e.CallID, true)
		}
	}
	return append(b, `]}`...)
}

func strAttr(b []byte, k, v string, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	b = append(b, `{"key":"`...)
	b = append(b, k...)
	b = append(b, `","value":{"stringValue":`...)
	b = audit.AppendJSONString(b, v)
	return append(b, `}}`...)
}

func intAttr(b []byte, k string, v int64) []byte {
	b = append(b, `{"key":"`...)
	b = append(b, k...)
	b = append(b, `","value":{"intValue":"`...)
	b = strconv.AppendInt(b, v, 10)
	return append(b, `"}}`...)
}
