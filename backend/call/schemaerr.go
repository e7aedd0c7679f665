package call

import (
	"fmt"
	"slices"
	"strings"
)

// Rules of the schema validator's messages that a sentence is made of;
// anything else is passed on with only the validator's path cleaned.
var (
	schemaWhere      = lazyRegexp(`validating (/properties/[^:]*|root): `)
	schemaExtra      = lazyRegexp(`^unexpected additional properties \[(.*)\]$`)
	schemaRequired   = lazyRegexp(`^required: missing properties: \[(.*)\]$`)
	schemaBound      = lazyRegexp(`^(minimum|maximum): (\S+) is (?:less|greater) than (\S+)$`)
	schemaMinItems   = lazyRegexp(`^minItems: array length \d+ is less than (\d+)$`)
	schemaLength     = lazyRegexp(`(?s)^(minLength|maxLength): .* contains (\d+) Unicode code points, (?:fewer|more) than (\d+)$`)
	schemaType       = lazyRegexp(`^type: .* has type "(\w+)", want "(\w+)"$`)
	schemaEnum       = lazyRegexp(`^enum: (.*) does not equal any of: \[(.*)\]$`)
	schemaRationalIs = lazyRegexp(`^(-?\d+)/1$`)
)

// schemaSentence says what is wrong with a call's arguments in one
// sentence the model can act on, where the validator's message reads
// "validating root: validating /properties/timeout_s: minimum: -5/1 is
// less than 1.000000". props are the tool's arguments.
func schemaSentence(tool string, props []string, err error) string {
	msg := err.Error()
	subject := schemaSubject(tool, msg)
	rule := schemaWhere().ReplaceAllString(msg, "")
	takes := ""
	if len(props) > 0 {
		takes = fmt.Sprintf("; it takes %s", strings.Join(slices.Sorted(slices.Values(props)), ", "))
	}
	switch {
	case schemaExtra().MatchString(rule):
		return fmt.Sprintf("%s has no argument %s%s", tool, schemaExtra().FindStringSubmatch(rule)[1], takes)
	case schemaRequired().MatchString(rule):
		return fmt.Sprintf("%s needs the argument %s", tool, schemaRequired().FindStringSubmatch(rule)[1])
	case subject == tool:
		return fmt.Sprintf("invalid arguments for %s: %s", tool, rule)
	case schemaBound().MatchString(rule):
		m := schemaBound().FindStringSubmatch(rule)
		bound := "at least"
		if m[1] == "maximum" {
			bound = "at most"
		}
		return fmt.Sprintf("%s must be %s %s (it was %s)", subject, bound, plainNumber(m[3]), plainNumber(m[2]))
	case schemaMinItems().MatchString(rule):
		n, items := schemaMinItems().FindStringSubmatch(rule)[1], "items"
		if n == "1" {
			items = "item"
		}
		return fmt.Sprintf("%s needs at least %s %s", subject, n, items)
	case schemaLength().MatchString(rule):
		// Never the string itself: it may be megabytes.
		m := schemaLength().FindStringSubmatch(rule)
		bound := "at least"
		if m[1] == "maxLength" {
			bound = "at most"
		}
		return fmt.Sprintf("%s must be %s %s characters long (it was %s)", subject, bound, m[3], m[2])
	case schemaType().MatchString(rule):
		m := schemaType().FindStringSubmatch(rule)
		return fmt.Sprintf("%s must be %s %s, not %s %s", subject, article(m[2]), m[2], article(m[1]), m[1])
	case schemaEnum().MatchString(rule):
		m := schemaEnum().FindStringSubmatch(rule)
		return fmt.Sprintf("%s must be one of %s (it was %s)", subject, strings.Join(strings.Fields(m[2]), ", "), m[1])
	}
	return fmt.Sprintf("invalid arguments: %s: %s", subject, rule)
}

// schemaSubject is what the validator's innermost path names:
// "run_command's timeout_s", "each item of run_command's argv", or the
// tool alone for the arguments as a whole.
func schemaSubject(tool, msg string) string {
	m := schemaWhere().FindAllStringSubmatch(msg, -1)
	if len(m) == 0 || m[len(m)-1][1] == "root" {
		return tool
	}
	parts := strings.Split(strings.TrimPrefix(m[len(m)-1][1], "/"), "/")
	var names []string
	for i := 0; i < len(parts); i++ {
		if parts[i] == "properties" && i+1 < len(parts) {
			names = append(names, parts[i+1])
			i++
		}
	}
	subject := tool + "'s " + strings.Join(names, ".")
	if parts[len(parts)-1] == "items" {
		subject = "each item of " + subject
	}
	return subject
}

// plainNumber writes the validator's numbers ("-5/1", "1.000000") as a
// person would.
func plainNumber(s string) string {
	if m := schemaRationalIs().FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
