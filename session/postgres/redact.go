package postgres

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// mask is what Redact puts in place of a password.
const mask = "xxxxx"

// Redact returns conn, a connection string (a postgres:// URL or
// key=value pairs), with its passwords replaced by xxxxx: the URL's own
// (postgres://user:xxxxx@host/db), its password= and sslpassword= query
// parameters, and a key=value string's password= and sslpassword=. It is
// for logs and error messages; a string that is no connection string
// comes back as it is. A malformed URL is masked by guess, rather more
// than less.
func Redact(conn string) string {
	return scrub(conn, secrets(conn))
}

// scrub replaces every occurrence of each secret in s with mask, longest
// first, so that a secret within another leaves nothing of the longer.
func scrub(s string, secrets []string) string {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, mask)
		}
	}
	return s
}

// secrets are the passwords of conn, as written and decoded.
func secrets(conn string) []string {
	if rest, ok := cutScheme(conn); ok {
		return urlSecrets(rest)
	}
	return keywordSecrets(conn)
}

func cutScheme(conn string) (string, bool) {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if rest, ok := strings.CutPrefix(conn, p); ok {
			return rest, true
		}
	}
	return "", false
}

// urlSecrets finds the passwords of a URL, rest being what follows its
// scheme. The userinfo is found as net/url finds it (the authority ends at
// the first '/' after the query and fragment are cut), and also as if the
// password held an unescaped '/', '?' or '#': the last '@' before the query
// ends it. Either may be wrong for a malformed URL; both are masked.
func urlSecrets(rest string) []string {
	var out []string
	add := func(raw string) {
		if raw == "" {
			return
		}
		out = append(out, raw)
		if dec, err := url.PathUnescape(raw); err == nil && dec != raw {
			out = append(out, dec)
		}
		if dec, err := url.QueryUnescape(raw); err == nil && dec != raw {
			out = append(out, dec)
		}
	}
	userPassword := func(authority string) {
		at := strings.LastIndex(authority, "@")
		if at < 0 {
			return
		}
		if _, pw, ok := strings.Cut(authority[:at], ":"); ok {
			add(pw)
		}
	}
	noFrag, _, _ := strings.Cut(rest, "#")
	beforeQuery, query, _ := strings.Cut(noFrag, "?")
	authority, _, _ := strings.Cut(beforeQuery, "/")
	userPassword(authority)
	userPassword(beforeQuery)
	userPassword(noFrag)
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if isPasswordKey(k) {
			add(v)
		}
	}
	return out
}

// keywordSecrets finds the password= and sslpassword= values of a
// key=value connection string, quoted ('…', with \' and \\) or not, as
// libpq reads them.
func keywordSecrets(s string) []string {
	var out []string
	for s != "" {
		s = strings.TrimLeft(s, " \t\n\r\f\v")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			break
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\n\r\f\v")
		var raw, val string
		if strings.HasPrefix(s, "'") {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			raw, val = s[1:min(i, len(s))], b.String()
			s = s[min(i+1, len(s)):]
		} else {
			var b strings.Builder
			i := 0
			for ; i < len(s) && !strings.ContainsRune(" \t\n\r\f\v", rune(s[i])); i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			raw, val, s = s[:i], b.String(), s[i:]
		}
		if isPasswordKey(key) {
			out = append(out, raw, val)
		}
	}
	return out
}

func isPasswordKey(k string) bool {
	k = strings.ToLower(k)
	return k == "password" || k == "sslpassword"
}

// redactedError is an error whose message had the passwords of a
// connection string taken out. It matches what the error it stands for
// matches (errors.Is and errors.As), but does not unwrap to it, so no
// chain of %v or %w prints the original message.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }
func (e *redactedError) As(target any) bool   { return errors.As(e.err, target) }

// redactError returns err with every one of secrets taken out of its
// message (nil for nil).
func redactError(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: scrub(err.Error(), secrets), err: err}
}
