package token

// ValidName: an agent token's name (also its file's, NAME.token) is 1 to
// 64 lowercase letters, digits, dots, underscores or dashes, starting
// with a letter or digit. Checked by hand: the same rule as a regexp
// (`[a-z0-9._-]{0,63}`) compiles to a 63-fold program at every start of
// every gatehouse command, the hook and `gatehouse exec` included.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// NameOfFile is the token name a token file's name gives (NAME.token),
// and whether it is one.
func NameOfFile(file string) (string, bool) {
	const ext = ".token"
	if len(file) <= len(ext) || file[len(file)-len(ext):] != ext {
		return "", false
	}
	name := file[:len(file)-len(ext)]
	return name, ValidName(name)
}
