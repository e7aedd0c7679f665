package secrets

import "testing"

func TestValueLooksSecret(t *testing.T) {
	for v, want := range map[string]bool{
		"postgres://app:s3cret@db.internal:5432/app": true,
		"redis://:s3cret@cache:6379/0":               true,
		"http://user:pw@proxy.example.test:3128":     true,
		"see https://a.example.test and ftp://u:p@h": true,
		"https://forge.example.test/org/repo":        false,
		"ssh://git@forge.example.test/repo":          false,
		"postgres://app@db.internal/app":             false,
		"mailto:someone@example.test":                false,
		"/usr/local/bin:/usr/bin":                    false,
	} {
		if got := ValueLooksSecret(v); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}
